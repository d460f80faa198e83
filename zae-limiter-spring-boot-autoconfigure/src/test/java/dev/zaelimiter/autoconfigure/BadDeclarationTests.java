package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.Entity;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.client.ZaeLimiterClientAutoConfiguration;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every kind of bad declaration fails startup, names its property, says what to write, and writes nothing. */
class BadDeclarationTests {

    private final InMemoryStore store = new InMemoryStore();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
            .withBean(LimiterStore.class, () -> store)
            .withPropertyValues("zae.limiter.resources.ok.limits.rpm.capacity=5");

    static Stream<Arguments> badDeclarations() {
        String r = "zae.limiter.resources.gpt-4.limits.rpm.";
        return Stream.of(
                Arguments.of(new String[] {r + "refill-period=1m"}, r + "capacity", "needs a capacity"),
                Arguments.of(new String[] {r + "capacity=0"}, r + "capacity",
                        "greater than zero"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=0 * 9-17 * * MON-FRI",
                        r + "schedule[0].scale=0.5"}, r + "schedule[0].cron", "seconds"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=* * L * *",
                        r + "schedule[0].scale=0.5"}, r + "schedule[0].cron", "L"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=* * * * MON-SUN",
                        r + "schedule[0].scale=0.5"}, r + "schedule[0].cron", "write * or a list"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=* 9-17 * * *",
                        r + "schedule[0].tz=Mars/Olympus", r + "schedule[0].scale=0.5"}, r + "schedule[0].tz",
                        "time zone"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=* 9-17 * * *",
                        r + "schedule[0].scale=0.5", r + "schedule[0].capacity=3"}, r + "schedule[0].scale", "not both"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=* 9-17 * * *",
                        r + "schedule[0].scale=0"}, r + "schedule[0].scale", "greater than"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=* 9-17 * * *",
                        r + "schedule[0].scale=1e300"}, r + "schedule[0].scale", "a scale lies between"),
                Arguments.of(new String[] {r + "capacity=10", r + "reset-schedule[0].cron=0 0 * * *",
                        r + "reset-schedule[0].tz=Europe/Berln"}, r + "reset-schedule[0].tz", "time zone"),
                Arguments.of(new String[] {r + "capacity=10", r + "reset-schedule[0].cron=0 0 * * * *"},
                        r + "reset-schedule[0].cron", "seconds"),
                Arguments.of(new String[] {r + "capacity=10", r + "reset-schedule[0].tz=UTC"},
                        r + "reset-schedule[0].cron", "needs a cron"),
                Arguments.of(new String[] {r + "capacity=10", r + "burst=0"}, r + "burst", "greater than zero"),
                Arguments.of(new String[] {r + "soft=true"}, r + "capacity", "max-in-flight"),
                Arguments.of(new String[] {r + "capacity=10", r + "reset-schedule[0].cron=0 0 * * *",
                        r + "refill-amount=5"}, r + "refill-amount", "does not drip"),
                Arguments.of(new String[] {r + "capacity=10", r + "reset-schedule[0].cron=0 0 * * *",
                        r + "reset-after=1h"}, r + "reset-after", "not both"),
                Arguments.of(new String[] {r + "max-in-flight=3", r + "capacity=10"}, r + "max-in-flight",
                        "only max-in-flight"),
                Arguments.of(new String[] {r + "capacity=10", r + "fixed-window=0s"}, r + "fixed-window",
                        "a fixed window must be at least one millisecond"),
                Arguments.of(new String[] {r + "capacity=10", r + "fixed-window=36601d"}, r + "fixed-window",
                        "at most 36600 days"),
                Arguments.of(new String[] {r + "fixed-window=10s"}, r + "capacity", "needs a capacity"),
                Arguments.of(new String[] {r + "capacity=10", r + "fixed-window=10s", r + "refill-period=1s"},
                        r + "refill-period", "does not drip"),
                Arguments.of(new String[] {r + "capacity=10", r + "fixed-window=10s", r + "reset-after=1h"},
                        r + "fixed-window", "choose one"),
                Arguments.of(new String[] {r + "capacity=10", r + "window-origin=2026-01-01T00:00:30Z"},
                        r + "window-origin", "only a fixed window has an origin"),
                Arguments.of(new String[] {r + "max-in-flight=3", r + "fixed-window=10s"}, r + "max-in-flight",
                        "only max-in-flight"),
                Arguments.of(new String[] {r + "max-in-flight=0"}, r + "max-in-flight", "greater than zero"),
                Arguments.of(new String[] {r + "max-in-flight=3", r + "local-reservations=true"},
                        r + "local-reservations", "never reserves"),
                Arguments.of(new String[] {r + "capacity=10", r + "soft=true", r + "local-reservations=true"},
                        r + "local-reservations", "only a hard limit that drips"),
                Arguments.of(new String[] {r + "capacity=10", r + "lease-timeout=1m"}, r + "lease-timeout",
                        "only a concurrency limit"),
                Arguments.of(new String[] {"zae.limiter.resources.gpt-4.limits.[1rpm].capacity=10"},
                        "zae.limiter.resources.gpt-4.limits.1rpm", "starts with a letter"),
                Arguments.of(new String[] {"zae.limiter.resources.[gpt#4].limits.rpm.capacity=10"},
                        "zae.limiter.resources.gpt#4", "resource name"),
                Arguments.of(new String[] {"zae.limiter.entities.[-bad].name=x"}, "zae.limiter.entities.-bad",
                        "entity id"),
                Arguments.of(new String[] {"zae.limiter.entities.a.name=" + "n".repeat(1025)},
                        "zae.limiter.entities.a", "at most 1024"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=0 * * * *",
                        r + "schedule[0].scale=0.5", r + "schedule[1].cron=1 * * * *", r + "schedule[1].scale=0.5",
                        r + "schedule[2].cron=2 * * * *", r + "schedule[2].scale=0.5",
                        r + "schedule[3].cron=3 * * * *", r + "schedule[3].scale=0.5",
                        r + "schedule[4].cron=4 * * * *", r + "schedule[4].scale=0.5",
                        r + "schedule[5].cron=5 * * * *", r + "schedule[5].scale=0.5",
                        r + "schedule[6].cron=6 * * * *", r + "schedule[6].scale=0.5",
                        r + "schedule[7].cron=7 * * * *", r + "schedule[7].scale=0.5",
                        r + "schedule[8].cron=8 * * * *", r + "schedule[8].scale=0.5",
                        r + "schedule[9].cron=9 * * * *", r + "schedule[9].scale=0.5",
                        r + "schedule[10].cron=10 * * * *", r + "schedule[10].scale=0.5",
                        r + "schedule[11].cron=11 * * * *", r + "schedule[11].scale=0.5",
                        r + "schedule[12].cron=12 * * * *", r + "schedule[12].scale=0.5",
                        r + "schedule[13].cron=13 * * * *", r + "schedule[13].scale=0.5",
                        r + "schedule[14].cron=14 * * * *", r + "schedule[14].scale=0.5",
                        r + "schedule[15].cron=15 * * * *", r + "schedule[15].scale=0.5",
                        r + "schedule[16].cron=16 * * * *", r + "schedule[16].scale=0.5"},
                        r + "schedule", "at most 16 schedule entries"),
                Arguments.of(new String[] {"zae.limiter.entities.a.parent=b", "zae.limiter.entities.b.parent=c",
                        "zae.limiter.entities.c.name=root"}, "zae.limiter.entities.a.parent", "two levels"),
                Arguments.of(new String[] {"zae.limiter.entities.a.parent=ghost"}, "zae.limiter.entities.a.parent",
                        "neither declared under zae.limiter.entities nor in the store"),
                Arguments.of(new String[] {r + "capacity=10", r + "schedule[0].cron=* 9-17 * * *",
                        r + "schedule[0].tz=America/New_York", r + "schedule[0].scale=0.5",
                        "zae.limiter.resources.gpt-4.limits.tpm.capacity=10",
                        "zae.limiter.resources.gpt-4.limits.tpm.schedule[0].cron=* 9-17 * * *",
                        "zae.limiter.resources.gpt-4.limits.tpm.schedule[0].tz=Europe/Berlin",
                        "zae.limiter.resources.gpt-4.limits.tpm.schedule[0].scale=0.5"},
                        "zae.limiter.resources.gpt-4.limits", "one time zone"));
    }

    @ParameterizedTest
    @MethodSource("badDeclarations")
    void failsStartupNamingThePropertyAndWritesNothing(String[] properties, String property, String says) {
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            InvalidDeclarationException cause = findCause(failure);
            assertThat(cause).as("startup failure %s", failure).isNotNull();
            assertThat(cause.property()).isEqualTo(property);
            assertThat(cause.reason()).contains(says);
            FailureAnalysis analysis = new InvalidDeclarationFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains(property).contains(says);
            assertThat(analysis.getAction()).contains(property).doesNotContain("as described above");
            assertThat(analysis.getDescription()).startsWith("The rate limit declaration '" + property + "'");
        });
        assertThat(RateLimiter.builder().store(store).build().admin().getResourceDefaults("ok"))
                .as("a bad declaration stops every write").isEmpty();
    }

    @Test
    void aParentThatExistsOnlyInTheStoreIsAccepted() {
        RateLimiter.builder().store(store).build().admin().createEntity(new Entity("org", "Org", null, false));
        runner.withPropertyValues("zae.limiter.entities.a.parent=org").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RateLimiter.class).admin().getEntity("a")).get()
                    .extracting(Entity::parentId).isEqualTo("org");
        });
    }

    @Test
    void aBadSettingOfABeanCreatedAfterTheLimiterStillStopsEveryWrite() {
        runner.withConfiguration(AutoConfigurations.of(ZaeLimiterClientAutoConfiguration.class))
                .withPropertyValues("zae.limiter.client.targets.t.resource=ok",
                        "zae.limiter.client.targets.t.entity.id=app", "zae.limiter.client.targets.t.consume.rpm=1",
                        "zae.limiter.client.targets.t.max-pause=0s")
                .run(context -> assertThat(findCause(context.getStartupFailure())).isNotNull()
                        .extracting(InvalidDeclarationException::property)
                        .isEqualTo("zae.limiter.client.targets.t.max-pause"));
        assertThat(RateLimiter.builder().store(store).build().admin().getResourceDefaults("ok"))
                .as("the bad target stops the declarations' writes").isEmpty();
    }

    @Test
    void theActionForARefusedNameStatesTheLibrarysOwnRule() {
        runner.withPropertyValues("zae.limiter.resources.api.limits.[1rpm].capacity=10").run(context -> {
            InvalidDeclarationException cause = findCause(context.getStartupFailure());
            assertThat(cause).isNotNull();
            assertThat(cause.rule()).isEqualTo("a limit name starts with a letter");
            assertThat(new InvalidDeclarationFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
                    .isEqualTo("Rename the limit 'zae.limiter.resources.api.limits.1rpm': a limit name starts with"
                            + " a letter.");
        });
    }

    private static InvalidDeclarationException findCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidDeclarationException e) {
                return e;
            }
        }
        return null;
    }
}
