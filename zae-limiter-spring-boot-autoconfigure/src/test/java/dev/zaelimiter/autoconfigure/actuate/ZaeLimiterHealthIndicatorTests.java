package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.metrics.MeteredLimiterStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ZaeLimiterHealthIndicatorTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterActuatorAutoConfiguration.class));

    @Test
    void upWhenTheStoreAnswers() {
        runner.run(context -> {
            Health health = context.getBean(ZaeLimiterHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("store", "InMemoryStore");
        });
    }

    @Test
    void downWithTheErrorWhenTheStoreIsUnavailable() {
        SwitchableStore switchable = new SwitchableStore();
        runner.withBean(LimiterStore.class, () -> switchable).run(context -> {
            ZaeLimiterHealthIndicator indicator = context.getBean(ZaeLimiterHealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

            switchable.down();
            Health down = indicator.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("error",
                    "dev.zaelimiter.StoreUnavailableException: the store is down (test)");

            switchable.up();
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void showsTheCircuitBreaker() {
        MutableClock clock = MutableClock.start();
        SwitchableStore switchable = new SwitchableStore();
        RateLimiter limiter = RateLimiter.builder().store(switchable).clock(clock)
                .circuitBreaker(2, Duration.ofSeconds(5)).build();
        ZaeLimiterHealthIndicator indicator = new ZaeLimiterHealthIndicator(limiter);
        assertThat(indicator.health().getDetails()).containsEntry("circuitBreaker",
                Map.of("state", "CLOSED", "consecutiveFailures", 0));

        switchable.down();
        for (int i = 0; i < 2; i++) {
            if (i == 1) {
                clock.advance(Duration.ofSeconds(5));              // failing for a whole cool-down
            }
            assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                    .isInstanceOf(StoreUnavailableException.class);
        }
        Health open = indicator.health();
        assertThat(open.getStatus()).isEqualTo(Status.DOWN);
        assertThat(open.getDetails()).containsEntry("circuitBreaker", Map.of("state", "OPEN",
                "consecutiveFailures", 2, "retryAt", clock.instant().plusSeconds(5).toString()));

        switchable.up();
        Health recovered = indicator.health();
        assertThat(recovered.getStatus()).as("the indicator reads the store itself").isEqualTo(Status.UP);
        assertThat(recovered.getDetails()).extracting("circuitBreaker").extracting("state").isEqualTo("OPEN");
    }

    @Test
    void noCircuitBreakerDetailWithoutOne() {
        RateLimiter limiter = RateLimiter.builder().noCircuitBreaker().build();
        assertThat(new ZaeLimiterHealthIndicator(limiter).health().getDetails()).doesNotContainKey("circuitBreaker");
    }

    @Test
    void downWhenTheStoreFailsOtherwise() {
        LimiterStore broken = (LimiterStore) Proxy.newProxyInstance(LimiterStore.class.getClassLoader(),
                new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                    throw new IllegalStateException("broken");
                });
        Health health = new ZaeLimiterHealthIndicator(RateLimiter.builder().store(broken).build()).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("error", "java.lang.IllegalStateException: broken");
    }

    @Test
    void namesTheStoreBehindTheMeteringOne() {
        LimiterStore metered = new MeteredLimiterStore(new InMemoryStore(), SimpleMeterRegistry::new);
        assertThat(ZaeLimiterHealthIndicator.kind(metered)).isEqualTo("InMemoryStore");
        Health health = new ZaeLimiterHealthIndicator(RateLimiter.builder().store(metered).build()).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("store", "InMemoryStore");
    }
}
