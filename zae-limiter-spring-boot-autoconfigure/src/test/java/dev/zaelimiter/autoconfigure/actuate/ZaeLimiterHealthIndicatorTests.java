package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.metrics.MeteredLimiterStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
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
            HealthReading health = HealthReading.of(context.getBean(ZaeLimiterHealthIndicator.class));
            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.details()).containsEntry("store", "InMemoryStore");
        });
    }

    @Test
    void downWithTheErrorWhenTheStoreIsUnavailable() {
        SwitchableStore switchable = new SwitchableStore();
        runner.withBean(LimiterStore.class, () -> switchable).run(context -> {
            ZaeLimiterHealthIndicator indicator = context.getBean(ZaeLimiterHealthIndicator.class);
            assertThat(HealthReading.of(indicator).status()).isEqualTo("UP");

            switchable.down();
            HealthReading down = HealthReading.of(indicator);
            assertThat(down.status()).isEqualTo("DOWN");
            assertThat(down.details()).containsEntry("error",
                    "dev.zaelimiter.StoreUnavailableException: the store is down (test)");

            switchable.up();
            assertThat(HealthReading.of(indicator).status()).isEqualTo("UP");
        });
    }

    @Test
    void showsTheCircuitBreaker() {
        MutableClock clock = MutableClock.start();
        SwitchableStore switchable = new SwitchableStore();
        RateLimiter limiter = RateLimiter.builder().store(switchable).clock(clock)
                .circuitBreaker(2, Duration.ofSeconds(5)).build();
        ZaeLimiterHealthIndicator indicator = new ZaeLimiterHealthIndicator(limiter);
        assertThat(HealthReading.of(indicator).details()).containsEntry("circuitBreaker",
                Map.of("state", "CLOSED", "consecutiveFailures", 0));

        switchable.down();
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                    .isInstanceOf(StoreUnavailableException.class);
        }
        HealthReading open = HealthReading.of(indicator);
        assertThat(open.status()).isEqualTo("DOWN");
        assertThat(open.details()).containsEntry("circuitBreaker", Map.of("state", "OPEN",
                "consecutiveFailures", 2, "retryAt", clock.instant().plusSeconds(5).toString()));

        switchable.up();
        HealthReading recovered = HealthReading.of(indicator);
        assertThat(recovered.status()).as("the indicator reads the store itself").isEqualTo("UP");
        assertThat(recovered.details()).extracting("circuitBreaker").extracting("state").isEqualTo("OPEN");
    }

    @Test
    void noCircuitBreakerDetailWithoutOne() {
        RateLimiter limiter = RateLimiter.builder().noCircuitBreaker().build();
        assertThat(HealthReading.of(new ZaeLimiterHealthIndicator(limiter)).details())
                .doesNotContainKey("circuitBreaker");
    }

    @Test
    void downWhenTheStoreFailsOtherwise() {
        LimiterStore broken = (LimiterStore) Proxy.newProxyInstance(LimiterStore.class.getClassLoader(),
                new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                    throw new IllegalStateException("broken");
                });
        HealthReading health = HealthReading.of(
                new ZaeLimiterHealthIndicator(RateLimiter.builder().store(broken).build()));
        assertThat(health.status()).isEqualTo("DOWN");
        assertThat(health.details()).containsEntry("error", "java.lang.IllegalStateException: broken");
    }

    @Test
    void namesTheStoreBehindTheMeteringOne() {
        LimiterStore metered = new MeteredLimiterStore(new InMemoryStore(), SimpleMeterRegistry::new);
        assertThat(StoreHealth.kind(metered)).isEqualTo("InMemoryStore");
        HealthReading health = HealthReading.of(
                new ZaeLimiterHealthIndicator(RateLimiter.builder().store(metered).build()));
        assertThat(health.status()).isEqualTo("UP");
        assertThat(health.details()).containsEntry("store", "InMemoryStore");
    }
}
