package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.CircuitBreaker;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ZaeLimiterAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class));

    @Test
    void defaultsToTheInMemoryStore() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RateLimiter.class).hasSingleBean(InMemoryStore.class);
            assertThat(context.getBean(RateLimiter.class).store()).isSameAs(context.getBean(LimiterStore.class));
        });
    }

    @Test
    void autoPicksMemoryWhenAClientExistsButNoTableIsConfigured() {
        runner.withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .run(context -> assertThat(context).hasSingleBean(InMemoryStore.class)
                        .doesNotHaveBean(DynamoDbStore.class));
    }

    @Test
    void autoPicksDynamoDbWhenAClientAndATableAreConfigured() {
        runner.withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .withPropertyValues("zae.limiter.dynamodb.table=autoconfig-auto", "zae.limiter.dynamodb.create-table=true",
                        "zae.limiter.namespace=auto-test", "zae.limiter.stamp-ttl=15s",
                        "zae.limiter.dynamodb.cascade-write=transactional", "zae.limiter.store-timeout=10s")
                .run(context -> {
                    assertThat(context).hasSingleBean(DynamoDbStore.class).doesNotHaveBean(InMemoryStore.class);
                    DynamoDbStore store = context.getBean(DynamoDbStore.class);
                    assertThat(store.table()).isEqualTo("autoconfig-auto");
                    assertThat(store.namespace()).isEqualTo("auto-test");
                    assertThat(store.cascadeWrite()).hasToString("TRANSACTIONAL");
                    assertThat(store.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
                });
    }

    @Test
    void theStoreTimeoutDefaultsToHalfASecondAndMustBePositive() {
        ApplicationContextRunner dynamodb = runner.withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .withPropertyValues("zae.limiter.store=dynamodb", "zae.limiter.dynamodb.create-table=true");
        dynamodb.run(context -> assertThat(context.getBean(DynamoDbStore.class).requestTimeout())
                .isEqualTo(Duration.ofMillis(500)));
        dynamodb.withPropertyValues("zae.limiter.store-timeout=0s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidDeclarationException.class)
                    .hasMessage("zae.limiter.store-timeout: is 'PT0S'; a deadline is more than zero, such as 500ms");
        });
    }

    @Test
    void theCircuitBreakerIsOnByDefaultAndConfigurable() {
        runner.run(context -> {
            CircuitBreaker breaker = context.getBean(RateLimiter.class).circuitBreaker();
            assertThat(breaker.enabled()).isTrue();
            assertThat(breaker.failureThreshold()).isEqualTo(5);
            assertThat(breaker.coolDown()).isEqualTo(Duration.ofSeconds(2));
        });
        runner.withPropertyValues("zae.limiter.circuit-breaker.failure-threshold=3",
                "zae.limiter.circuit-breaker.cool-down=7s").run(context -> {
                    CircuitBreaker breaker = context.getBean(RateLimiter.class).circuitBreaker();
                    assertThat(breaker.failureThreshold()).isEqualTo(3);
                    assertThat(breaker.coolDown()).isEqualTo(Duration.ofSeconds(7));
                });
        runner.withPropertyValues("zae.limiter.circuit-breaker.enabled=false").run(context ->
                assertThat(context.getBean(RateLimiter.class).circuitBreaker().enabled()).isFalse());
        runner.withPropertyValues("zae.limiter.circuit-breaker.failure-threshold=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidDeclarationException.class)
                    .hasMessage("zae.limiter.circuit-breaker.failure-threshold: is '0'; at least one failure opens"
                            + " the circuit");
        });
        runner.withPropertyValues("zae.limiter.circuit-breaker.cool-down=0s").run(context ->
                assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageStartingWith("zae.limiter.circuit-breaker.cool-down: is 'PT0S'"));
    }

    @Test
    void explicitMemoryWinsOverAConfiguredTable() {
        runner.withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .withPropertyValues("zae.limiter.store=memory", "zae.limiter.dynamodb.table=ignored")
                .run(context -> assertThat(context).hasSingleBean(InMemoryStore.class));
    }

    @Test
    void explicitDynamoDbWithoutAClientFailsStartupWithAClearMessage() {
        runner.withPropertyValues("zae.limiter.store=dynamodb").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidDeclarationException.class)
                    .hasMessageContaining("zae.limiter.store").hasMessageContaining("DynamoDbClient");
        });
    }

    @Test
    void withoutTheDynamoDbModuleAutoWithATableStaysInMemory() {
        runner.withClassLoader(new FilteredClassLoader(DynamoDbStore.class))
                .withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .withPropertyValues("zae.limiter.dynamodb.table=t")
                .run(context -> assertThat(context).hasSingleBean(InMemoryStore.class)
                        .doesNotHaveBean(DynamoDbStore.class));
    }

    @Test
    void explicitDynamoDbWithoutTheDynamoDbModuleFailsStartupNamingTheDependency() {
        runner.withClassLoader(new FilteredClassLoader(DynamoDbStore.class))
                .withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .withPropertyValues("zae.limiter.store=dynamodb", "zae.limiter.dynamodb.table=t")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .isInstanceOf(InvalidDeclarationException.class)
                            .hasMessageContaining("zae.limiter.store")
                            .hasMessageContaining("the DynamoDB store is not on the class path")
                            .satisfies(e -> assertThat(((InvalidDeclarationException) e).action())
                                    .contains("Add the dependency dev.zaelimiter:zae-limiter-dynamodb"));
                });
    }

    @Test
    void withoutTheAwsSdkTheMemoryStoreIsUsed() {
        runner.withClassLoader(new FilteredClassLoader(DynamoDbClient.class))
                .withPropertyValues("zae.limiter.dynamodb.table=t")
                .run(context -> assertThat(context).hasSingleBean(InMemoryStore.class));
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnStoreOrLimiter() {
        InMemoryStore own = new InMemoryStore();
        runner.withBean(LimiterStore.class, () -> own).run(context -> {
            assertThat(context).hasSingleBean(LimiterStore.class);
            assertThat(context.getBean(RateLimiter.class).store()).isSameAs(own);
        });
        RateLimiter mine = RateLimiter.builder().build();
        runner.withBean(RateLimiter.class, () -> mine)
                .run(context -> assertThat(context.getBean(RateLimiter.class)).isSameAs(mine));
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("zae.limiter.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RateLimiter.class));
    }

    @Test
    void usesTheApplicationClockAndPolicy() {
        MutableClock clock = MutableClock.start();
        runner.withBean(Clock.class, () -> clock).withPropertyValues("zae.limiter.on-unavailable=allow")
                .run(context -> {
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThat(limiter.clock()).isSameAs(clock);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class ClockConfiguration {
        @Bean
        Clock clock() {
            return MutableClock.start();
        }
    }

    @Test
    void declarationsAreWrittenToTheStoreAtStartup() {
        runner.withUserConfiguration(ClockConfiguration.class).withPropertyValues(
                "zae.limiter.system.limits.rpm.capacity=10",
                "zae.limiter.resources.gpt-4.limits.rpm.capacity=100",
                "zae.limiter.resources.gpt-4.limits.tpm.capacity=10000",
                "zae.limiter.resources.gpt-4.limits.tpm.burst=20000",
                "zae.limiter.resources.gpt-4.limits.tpm.soft=true",
                "zae.limiter.resources.gpt-4.cascade=true",
                "zae.limiter.resources.gpt-4.limits.monthly.capacity=5000",
                "zae.limiter.resources.gpt-4.limits.monthly.reset-schedule[0].cron=0 0 1 * *",
                "zae.limiter.resources.gpt-4.limits.monthly.reset-schedule[0].tz=America/New_York",
                "zae.limiter.resources.[openai/gpt-4o].limits.rps.capacity=5",
                "zae.limiter.resources.[openai/gpt-4o].limits.rps.refill-period=1s",
                "zae.limiter.resources.[openai/gpt-4o].limits.rps.schedule[0].cron=* 9-17 * * MON-FRI",
                "zae.limiter.resources.[openai/gpt-4o].limits.rps.schedule[0].tz=America/New_York",
                "zae.limiter.resources.[openai/gpt-4o].limits.rps.schedule[0].scale=0.5",
                "zae.limiter.resources.legacy.disabled=bypass",
                "zae.limiter.resources.jobs.limits.inflight.max-in-flight=4",
                "zae.limiter.resources.jobs.limits.inflight.lease-timeout=2m",
                "zae.limiter.entities.org-acme.name=Acme",
                "zae.limiter.entities.org-acme.resources.gpt-4.limits.tpm.capacity=100000",
                "zae.limiter.entities.key-1.parent=org-acme",
                "zae.limiter.entities.key-1.cascade=true",
                "zae.limiter.entities.key-1.disabled=enabled",
                "zae.limiter.entities.key-1.resources.gpt-4.limits.session.capacity=50",
                "zae.limiter.entities.key-1.resources.gpt-4.limits.session.reset-after=5h")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    var admin = context.getBean(RateLimiter.class).admin();
                    assertThat(admin.getSystemDefaults()).containsExactly(Limit.perMinute("rpm", 10));
                    assertThat(admin.getResourceDefaults("gpt-4")).containsExactly(Limit.perMinute("rpm", 100),
                            Limit.perMinute("tpm", 10_000).withBurst(20_000).soft(),
                            Limit.quota("monthly", 5000, "0 0 1 * *", java.time.ZoneId.of("America/New_York")));
                    assertThat(admin.getResourceCascade("gpt-4")).contains(true);
                    assertThat(admin.getResourceDefaults("openai/gpt-4o")).singleElement()
                            .satisfies(l -> assertThat(l.schedule()).hasSize(1));
                    assertThat(admin.getResourceDisabled("legacy")).contains(DisabledMode.BYPASS);
                    assertThat(admin.getResourceDefaults("jobs"))
                            .containsExactly(Limit.concurrency("inflight", 4, Duration.ofMinutes(2)));
                    assertThat(admin.getEntity("org-acme")).contains(new Entity("org-acme", "Acme", null, false));
                    assertThat(admin.getEntity("key-1")).contains(new Entity("key-1", null, "org-acme", true));
                    assertThat(admin.getEntityDisabled("key-1", "_default_")).contains(DisabledMode.ENABLED);
                    assertThat(admin.getLimits("key-1", "gpt-4"))
                            .containsExactly(Limit.sessionQuota("session", 50, Duration.ofHours(5)));
                    assertThat(admin.getLimits("org-acme", "gpt-4")).containsExactly(Limit.perMinute("tpm", 100_000));

                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    limiter.acquire("key-1", "gpt-4", Map.of("session", 1L));
                });
    }

    @Test
    void aLimitDeclaredWithLocalReservationsReservesAndTheInMemoryStoreAcceptsIt() {
        runner.withPropertyValues(
                "zae.limiter.resources.gpt-4.limits.org-rps.capacity=10000",
                "zae.limiter.resources.gpt-4.limits.org-rps.refill-period=1s",
                "zae.limiter.resources.gpt-4.limits.org-rps.local-reservations=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThat(limiter.admin().getResourceDefaults("gpt-4"))
                            .containsExactly(Limit.perSecond("org-rps", 10_000).withLocalReservations());
                    assertThat(limiter.acquire("org-acme", "gpt-4", Map.of("org-rps", 1L)).statuses())
                            .singleElement().satisfies(status -> assertThat(status.available()).isEqualTo(9_999));
                });
    }

    @Test
    void undeclaredItemsAreLeftAlone() {
        InMemoryStore store = new InMemoryStore();
        RateLimiter before = RateLimiter.builder().store(store).build();
        before.admin().setResourceDefaults("other", List.of(Limit.perHour("rph", 7)));
        before.admin().createEntity("someone");
        runner.withBean(LimiterStore.class, () -> store)
                .withPropertyValues("zae.limiter.resources.gpt-4.limits.rpm.capacity=100")
                .run(context -> {
                    var admin = context.getBean(RateLimiter.class).admin();
                    assertThat(admin.getResourceDefaults("other")).containsExactly(Limit.perHour("rph", 7));
                    assertThat(admin.getEntity("someone")).isPresent();
                });
    }

    @Test
    void startupUpdatesAnExistingEntityToItsDeclaration() {
        InMemoryStore store = new InMemoryStore();
        RateLimiter before = RateLimiter.builder().store(store).build();
        before.admin().createEntity("org-1");
        before.admin().createEntity(Entity.of("key-1").withName("old"));
        runner.withBean(LimiterStore.class, () -> store)
                .withPropertyValues("zae.limiter.entities.key-1.name=new", "zae.limiter.entities.key-1.parent=org-1",
                        "zae.limiter.entities.key-1.cascade=true")
                .run(context -> assertThat(context.getBean(RateLimiter.class).admin().getEntity("key-1"))
                        .contains(new Entity("key-1", "new", "org-1", true)));
    }
}
