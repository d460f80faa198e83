package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.SwitchableStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/** What the meters say after some decisions, on the in-memory store. */
class ZaeLimiterMetricsTests {

    private final SwitchableStore switchable = new SwitchableStore();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withBean(Clock.class, MutableClock::start)
            .withBean(LimiterStore.class, () -> switchable)
            .withPropertyValues(
                    "zae.limiter.on-unavailable=allow",
                    "zae.limiter.resources.api.limits.rpm.capacity=2",
                    "zae.limiter.resources.api.limits.tpm.capacity=100",
                    "zae.limiter.resources.search.limits.rpm.capacity=5",
                    "zae.limiter.entities.vip.disabled=bypass");

    private void run(ContextConsumer<AssertableApplicationContext> test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            test.accept(context);
        });
    }

    /** Two admitted, one refused by rpm, one by rpm and tpm, one bypassed, one degraded; one admitted on search. */
    private static void decide(AssertableApplicationContext context, SwitchableStore switchable) {
        RateLimiter limiter = context.getBean(RateLimiter.class);
        limiter.acquire("user-1", "api", Map.of("rpm", 1L, "tpm", 10L)).close();
        limiter.acquire("user-1", "api", Map.of("rpm", 1L, "tpm", 10L)).close();
        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)));
        limiter.acquire("user-2", "api", Map.of("rpm", 1L, "tpm", 95L)).close();
        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> limiter.acquire("user-2", "api", Map.of("rpm", 2L, "tpm", 10L)).close());
        limiter.acquire("vip", "api", Map.of("rpm", 50L)).close();
        limiter.acquire("user-1", "search", Map.of("rpm", 1L)).close();
        switchable.down();
        limiter.acquire("user-3", "api", Map.of("rpm", 1L)).close();
        switchable.up();
    }

    private static double count(MeterRegistry registry, String resource, String outcome, String limit) {
        Counter counter = registry.find(MicrometerRateLimiterListener.DECISIONS)
                .tags("resource", resource, "outcome", outcome, "limit", limit).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void countsDecisionsByResourceOutcomeAndLimit() {
        run(context -> {
            decide(context, switchable);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(count(registry, "api", "admitted", "none")).isEqualTo(3);
            assertThat(count(registry, "api", "refused", "rpm")).isEqualTo(1);
            assertThat(count(registry, "api", "refused", "rpm,tpm")).isEqualTo(1);
            assertThat(count(registry, "api", "bypassed", "none")).isEqualTo(1);
            assertThat(count(registry, "api", "degraded", "none")).isEqualTo(1);
            assertThat(count(registry, "search", "admitted", "none")).isEqualTo(1);
            assertThat(registry.get(MicrometerRateLimiterListener.DECISIONS).counters())
                    .extracting(c -> c.getId().getTag("outcome"))
                    .containsOnly("admitted", "refused", "bypassed", "degraded");
        });
    }

    @Test
    void noEntityTagByDefault() {
        run(context -> {
            decide(context, switchable);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (Meter meter : registry.getMeters()) {
                assertThat(meter.getId().getTag("entity")).as(meter.getId().toString()).isNull();
                assertThat(meter.getId().getTags()).extracting(Tag::getValue)
                        .doesNotContain("user-1", "user-2", "user-3", "vip");
            }
            assertThat(tagKeys(registry, MicrometerRateLimiterListener.DECISIONS))
                    .isEqualTo(Set.of("resource", "outcome", "limit", "on-unavailable"));
            assertThat(tagKeys(registry, MicrometerRateLimiterListener.DECISION_LATENCY))
                    .isEqualTo(Set.of("resource", "outcome"));
            // bounded: one series per resource, outcome and limit, however many entities
            assertThat(registry.get(MicrometerRateLimiterListener.DECISIONS).counters()).hasSize(6);
        });
    }

    @Test
    void decisionsNameThePolicyThatAppliedTheCallsOwnOrTheLimiters() {
        run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            limiter.acquire(AcquireRequest.of("user-2", "api").consume(Map.of("rpm", 1L))
                    .onUnavailable(Unavailable.BLOCK)).close();
            switchable.down();
            assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(() -> limiter.acquire(
                    AcquireRequest.of("user-3", "api").consume(Map.of("rpm", 1L)).onUnavailable(Unavailable.BLOCK)));
            limiter.acquire("user-4", "api", Map.of("rpm", 1L)).close();
            switchable.up();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(MicrometerRateLimiterListener.DECISIONS).counters())
                    .extracting(c -> c.getId().getTag("outcome") + " " + c.getId().getTag("on-unavailable"),
                            Counter::count)
                    .containsExactlyInAnyOrder(tuple("admitted allow", 1.0), tuple("admitted block", 1.0),
                            tuple("degraded allow", 1.0));
        });
    }

    @Test
    void entityTagWhenAskedFor() {
        runner.withPropertyValues("zae.limiter.metrics.entity-tag=true").run(context -> {
            decide(context, switchable);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(MicrometerRateLimiterListener.DECISIONS)
                    .tags("entity", "user-1", "resource", "api", "outcome", "admitted").counter().count())
                    .isEqualTo(2);
            assertThat(registry.get(MicrometerRateLimiterListener.DECISIONS)
                    .tags("entity", "user-2", "outcome", "refused", "limit", "rpm,tpm").counter().count())
                    .isEqualTo(1);
            assertThat(tagKeys(registry, MicrometerRateLimiterListener.DECISIONS))
                    .isEqualTo(Set.of("resource", "outcome", "limit", "on-unavailable", "entity"));
            // the timer never carries the entity
            assertThat(tagKeys(registry, MicrometerRateLimiterListener.DECISION_LATENCY))
                    .isEqualTo(Set.of("resource", "outcome"));
        });
    }

    @Test
    void countsCascadingCallsWhoseParentHasNoLimits() {
        runner.withPropertyValues("zae.limiter.entities.org.name=Org", "zae.limiter.entities.kid.parent=org",
                "zae.limiter.entities.kid.cascade=true",
                "zae.limiter.entities.kid.resources.solo.limits.rpm.capacity=10").run(context -> {
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    limiter.acquire("kid", "solo", Map.of("rpm", 1L)).close();
                    limiter.acquire("kid", "solo", Map.of("rpm", 1L)).close();
                    limiter.acquire("kid", "api", Map.of("rpm", 1L)).close();   // org falls back to api's defaults
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get(MicrometerRateLimiterListener.PARENT_NOT_DEBITED).counters())
                            .singleElement().satisfies(c -> {
                                assertThat(c.getId().getTags()).containsExactly(Tag.of("resource", "solo"));
                                assertThat(c.count()).isEqualTo(2);
                            });
                });
    }

    @Test
    void timesDecisions() {
        run(context -> {
            decide(context, switchable);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Timer admitted = registry.get(MicrometerRateLimiterListener.DECISION_LATENCY)
                    .tags("resource", "api", "outcome", "admitted").timer();
            assertThat(admitted.count()).isEqualTo(3);
            assertThat(admitted.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(registry.get(MicrometerRateLimiterListener.DECISION_LATENCY)
                    .tags("resource", "api", "outcome", "refused").timer().count()).isEqualTo(2);
        });
    }

    @Test
    void timesStoreCallsPerOperation() {
        run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            // startup wrote the declarations: two resource levels, one entity record and its disabled mode
            assertThat(storeCount(registry, "putLimits", "success")).isEqualTo(2);
            assertThat(storeCount(registry, "createEntity", "success")).isEqualTo(1);
            assertThat(storeCount(registry, "putDisabled", "success")).isEqualTo(1);

            decide(context, switchable);
            // seven decisions reached the store; each read its configuration and tried one debit
            assertThat(storeCount(registry, "loadConfig", "success")).isEqualTo(7);
            assertThat(storeCount(registry, "tryAcquire", "success")).isEqualTo(7);
            assertThat(storeCount(registry, "loadConfig", "unavailable")).isEqualTo(1);

            context.getBean(RateLimiter.class).inspect("user-1", "api");
            assertThat(storeCount(registry, "peek", "success")).isEqualTo(1);
            assertThat(tagKeys(registry, MeteredLimiterStore.STORE_LATENCY)).isEqualTo(Set.of("operation", "outcome"));
        });
    }

    private static long storeCount(MeterRegistry registry, String operation, String outcome) {
        Timer timer = registry.find(MeteredLimiterStore.STORE_LATENCY)
                .tags("operation", operation, "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    private static Set<String> tagKeys(MeterRegistry registry, String name) {
        return registry.get(name).meters().stream()
                .flatMap(m -> m.getId().getTags().stream())
                .map(Tag::getKey)
                .collect(Collectors.toSet());
    }
}
