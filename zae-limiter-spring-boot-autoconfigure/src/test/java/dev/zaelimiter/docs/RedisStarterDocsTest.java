package dev.zaelimiter.docs;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.autoconfigure.ImportDataRedis;
import dev.zaelimiter.autoconfigure.ImportedAutoConfigurations;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties;
import dev.zaelimiter.store.redis.RedisServer;
import dev.zaelimiter.store.redis.RedisStore;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts an application with the YAML of docs/redis.md's Spring Boot section, on the test's redis-server in place of
 * localhost:6379: the store shares Spring Data Redis's connection, database included.
 */
class RedisStarterDocsTest {

    @Test
    void theDocumentedYamlRunsOnTheApplicationsRedisConnection() {
        RedisServer server = RedisServer.get();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withConfiguration(ImportedAutoConfigurations.of(ImportDataRedis.class))
                .withBean(Clock.class, MutableClock::start)
                .withInitializer(DocsYaml.initializer("redis.md", "redis-starter"))
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new MapPropertySource("test server", Map.of("spring.data.redis.host", "127.0.0.1",
                                "spring.data.redis.port", server.port()))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisStore store = context.getBean(RedisStore.class);
                    assertThat(store.prefix()).isEqualTo("checkout");
                    assertThat(store.requestTimeout()).isEqualTo(Duration.ofMillis(300));
                    assertThat(context.getBean(ZaeLimiterProperties.class).getOnUnavailable())
                            .isEqualTo(Unavailable.ALLOW);
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    limiter.acquire("merchant-42", "payments", Map.of("rps", 1L)).close();
                    assertThat(limiter.available("merchant-42", "payments")).containsEntry("rps", 49L);
                    try (RedisClient client = RedisClient.create(server.uri() + "/1");
                            StatefulRedisConnection<String, String> redis = client.connect()) {
                        assertThat(redis.sync().exists("checkout#E#merchant-42#B#payments")).isEqualTo(1);
                    }
                });
    }
}
