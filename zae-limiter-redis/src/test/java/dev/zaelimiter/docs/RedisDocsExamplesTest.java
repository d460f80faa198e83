package dev.zaelimiter.docs;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.redis.RedisStore;
import dev.zaelimiter.store.redis.RedisTestStores;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The examples of {@code docs/redis.md}, run against the test server and the test cluster. */
class RedisDocsExamplesTest {

    private final RedisClient redisClient = RedisTestStores.client();

    @Test
    void redisSetup() {
        // tag::redisSetup[]
        RedisStore store = RedisStore.builder()
                .client(redisClient)                     // reuse the application's Lettuce RedisClient
                .prefix("checkout")                      // keeps applications sharing a Redis apart
                .stampTtl(Duration.ofSeconds(30))        // how long a process trusts configuration it read
                .requestTimeout(Duration.ofSeconds(1))   // deadline of every command (500 ms if unset)
                .build();

        RateLimiter limiter = RateLimiter.builder().store(store).build();
        limiter.admin().setResourceDefaults("payments", List.of(Limit.perSecond("rps", 50)));
        try (Lease lease = limiter.acquire("merchant-42", "payments", Map.of("rps", 1L))) {
            assertThat(lease.statuses()).singleElement()
                    .satisfies(status -> assertThat(status.available()).isEqualTo(49));
        }
        // end::redisSetup[]
        store.close();
    }

    @Test
    void redisRetention() {
        // tag::redisRetention[]
        RedisStore store = RedisStore.builder()
                .client(redisClient)
                .prefix("billing")
                .usageRetention(Duration.ofDays(7), Duration.ofDays(400))   // hour periods, day periods
                .auditRetention(Duration.ofDays(3650))                      // ten years of configuration changes
                .build();

        assertThatThrownBy(() -> RedisStore.builder().auditRetention(Duration.ofHours(12)))
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("auditRetention"));
        // end::redisRetention[]
        RateLimiter limiter = RateLimiter.builder().store(store).build();
        limiter.admin().setResourceDefaults("invoices", List.of(Limit.perSecond("rps", 5)));
        try (var connection = redisClient.connect()) {
            String event = connection.sync().keys("billing#AE#*").get(0);
            assertThat(Duration.ofMillis(connection.sync().pttl(event)))
                    .isBetween(Duration.ofDays(3650).minusMinutes(1), Duration.ofDays(3650));
        }
        store.close();
    }

    @Test
    void redisDebt() {
        MutableClock clock = MutableClock.start();
        RedisStore store = RedisStore.builder().client(redisClient).prefix("reports").clock(clock).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        // tag::redisDebt[]
        limiter.admin().setResourceDefaults("reports", List.of(Limit.perHour("tokens", 10).soft()));
        limiter.acquire("tenant-7", "reports", Map.of("tokens", 1_010L)).close();      // owes 1,000: 100 hours

        try (var connection = redisClient.connect()) {                                // the key outlives the debt
            long ttl = connection.sync().pttl("reports#E#tenant-7#B#reports");
            assertThat(Duration.ofMillis(ttl)).isGreaterThan(Duration.ofHours(100));
        }

        clock.advance(Duration.ofHours(50));
        assertThat(limiter.available("tenant-7", "reports")).containsEntry("tokens", -500L);
        // end::redisDebt[]
        store.close();
    }

    @Test
    void redisCluster() {
        RedisClusterClient clusterClient = RedisTestStores.clusterClient();
        try (var warm = clusterClient.connect()) {      // the cluster's topology, before the example's deadline
            warm.sync().ping();
        }
        // tag::redisCluster[]
        RedisStore store = RedisStore.builder()
                .clusterClient(clusterClient)            // the application's Lettuce RedisClusterClient
                .prefix("checkout")                      // no { }: the store places the hash tags
                .requestTimeout(Duration.ofSeconds(1))   // deadline of every command (500 ms if unset)
                .build();

        RateLimiter limiter = RateLimiter.builder().store(store).build();
        limiter.admin().createEntity(Entity.of("org-1"));
        limiter.admin().createEntity(Entity.of("team-a").withParent("org-1").withCascade(true));
        limiter.admin().setResourceDefaults("builds", List.of(Limit.perMinute("jobs", 10)));
        limiter.acquire("team-a", "builds", Map.of("jobs", 1L)).close();   // child and parent: one script run

        try (var connection = clusterClient.connect()) {   // both buckets carry the tree's hash tag: one slot
            assertThat(connection.sync().exists("checkout#E#team-a#B#builds#{org-1}",
                    "checkout#E#org-1#B#builds#{org-1}")).isEqualTo(2);
        }
        // end::redisCluster[]
        store.close();
    }
}
