package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.autoconfigure.StoreSetup;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.metrics.StoreFaultMeters;
import dev.zaelimiter.autoconfigure.metrics.ZaeLimiterMetricsAutoConfiguration;
import dev.zaelimiter.store.redis.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis store under the starter's health indicator and meters, on a real redis-server that is stopped
 * ({@code SIGSTOP}) and continued: health says DOWN with the store's kind while Redis does not answer, and each
 * command past {@code store-timeout} counts in {@code zae.limiter.store.timeouts}.
 */
class RedisStoreHealthAndMetricsTests {

    @Test
    void aStoppedRedisIsDownOnHealthAndItsTimeoutsAreCounted() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                            ZaeLimiterActuatorAutoConfiguration.class, ZaeLimiterMetricsAutoConfiguration.class))
                    .withBean(SimpleMeterRegistry.class)
                    .withPropertyValues("zae.limiter.redis.url=" + server.uri(), "zae.limiter.store-timeout=2s",
                            "zae.limiter.circuit-breaker.enabled=false",
                            "zae.limiter.resources.api.limits.rpm.capacity=10")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(StoreSetup.class).pending()).isEmpty();
                        RateLimiter limiter = context.getBean(RateLimiter.class);
                        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
                        HealthReading up = HealthReading.of(context.getBean(ZaeLimiterHealthIndicator.class));
                        assertThat(up.status()).isEqualTo("UP");
                        assertThat(up.details()).containsEntry("store", "RedisStore");
                        MeterRegistry registry = context.getBean(MeterRegistry.class);
                        assertThat(registry.get(StoreFaultMeters.TIMEOUTS).functionCounter().count()).isZero();

                        signal("STOP", server.pid());
                        try {
                            assertThatThrownBy(() -> limiter.acquire("user-2", "api", Map.of("rpm", 1L)))
                                    .isInstanceOf(StoreUnavailableException.class);
                            HealthReading down = HealthReading.of(
                                    context.getBean(ZaeLimiterHealthIndicator.class));
                            assertThat(down.status()).isEqualTo("DOWN");
                            assertThat(down.details()).containsEntry("store", "RedisStore");
                            assertThat(registry.get(StoreFaultMeters.TIMEOUTS).functionCounter().count())
                                    .isGreaterThanOrEqualTo(2);
                        } finally {
                            signal("CONT", server.pid());
                        }
                        assertThat(limiter.acquire("user-3", "api", Map.of("rpm", 1L)).statuses()).singleElement()
                                .satisfies(s -> assertThat(s.available()).isEqualTo(9));
                    });
        }
    }

    private static void signal(String signal, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }
}
