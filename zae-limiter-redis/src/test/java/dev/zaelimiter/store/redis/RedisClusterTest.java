package dev.zaelimiter.store.redis;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store on a Redis Cluster of three masters: where its keys go, what each call costs there
 * ({@link RedisStore#commands()}: commands, all of a call's in flight together), and what a call whose buckets lie
 * in several slots does when one of them changed under it.
 */
class RedisClusterTest {

    private static StatefulRedisClusterConnection<String, String> connection;

    private final MutableClock clock = MutableClock.start();
    private RedisStore store;
    private RateLimiter limiter;

    @BeforeEach
    void setUp() {
        store = RedisTestStores.newClusterStore(clock);
        limiter = limiter(store);
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private RateLimiter limiter(RedisStore on) {
        return RateLimiter.builder().store(on).clock(clock).usageFlushInterval(Duration.ZERO).build();
    }

    private RedisStore second() {
        return RedisStore.builder().clusterClient(RedisTestStores.clusterClient()).prefix(store.prefix())
                .requestTimeout(RedisTestStores.REQUEST_TIMEOUT).clock(clock).build();
    }

    @Test
    void aDecisionIsTheScriptAndAGetOfTheConfigurationVersionInFlightTogether() {
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        long before = store.commands();
        for (int i = 0; i < 10; i++) {
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        }
        assertThat(store.commands() - before).isEqualTo(20);
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 89L);
        assertThat(redis().exists(store.prefix() + "#E#user-1#B#api#{user-1}")).isEqualTo(1);
    }

    @Test
    void aCascadeIsOneScriptRunInTheSlotOfItsTree() {
        limiter.admin().createEntity(Entity.of("org-1"));
        limiter.admin().createEntity(new Entity("user-1", null, "org-1", true));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        String child = store.prefix() + "#E#user-1#B#api#{org-1}";
        String parent = store.prefix() + "#E#org-1#B#api#{org-1}";
        assertThat(redis().exists(child, parent)).isEqualTo(2);
        assertThat(SlotHash.getSlot(child)).isEqualTo(SlotHash.getSlot(parent));

        long before = store.commands();
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        assertThat(store.commands() - before).as("one script run and the version").isEqualTo(2);
        assertThat(limiter.available("org-1", "api")).containsEntry("rpm", 98L);
    }

    @Test
    void bucketsOfEntitiesInOtherSlotsAreRunTogetherOneScriptPerSlot() {
        AcquireRequest both = AcquireRequest.of("a", "api").consume("rpm", 1).also("b", "api", Map.of("rpm", 1L));
        assertThat(SlotHash.getSlot("{a}")).isNotEqualTo(SlotHash.getSlot("{b}"));
        limiter.acquire(both).close();
        long before = store.commands();
        limiter.acquire(both).close();
        assertThat(store.commands() - before).as("two script runs and the version, in flight together")
                .isEqualTo(3);
        assertThat(limiter.available("a", "api")).containsEntry("rpm", 98L);
        assertThat(limiter.available("b", "api")).containsEntry("rpm", 98L);
    }

    @Test
    void aSlotWrittenBeforeAnotherSlotRefusedIsGivenBackExactly() {
        AcquireRequest both = AcquireRequest.of("a", "api").consume("rpm", 10).also("b", "api", Map.of("rpm", 10L));
        limiter.acquire(both).close();                                   // this process knows both buckets
        try (RedisStore other = second()) {
            limiter(other).acquire("b", "api", Map.of("rpm", 85L)).close();    // b has 5 left; this one thinks 90
        }
        long before = store.commands();
        assertThatThrownBy(() -> limiter.acquire(both)).isInstanceOf(RateLimitExceededException.class);
        assertThat(store.commands() - before).as("both runs (a written, b found changed), then a given back")
                .isEqualTo(3 + 2);
        assertThat(limiter.available("a", "api")).containsEntry("rpm", 90L);
        assertThat(limiter.available("b", "api")).containsEntry("rpm", 5L);
    }

    @Test
    void aChangeMadeByAnotherProcessIsInForceFromTheSecondDecisionAfterIt() {
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        try (RedisStore other = second()) {
            limiter(other).admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 2)));
        }
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();        // decided on what it had read
        assertThat(limiter.available("user-1", "api")).isEqualTo(Map.of("rpm", 2L));
    }

    @Test
    void aNewParentMovesTheBucketsToTheSlotOfItsTreeWithTheirBalances() {
        limiter.admin().createEntity(Entity.of("org-1"));
        limiter.admin().createEntity(Entity.of("org-2"));
        limiter.admin().createEntity(new Entity("user-1", null, "org-1", true));
        limiter.acquire("user-1", "api", Map.of("rpm", 60L)).close();
        String before = store.prefix() + "#E#user-1#B#api#{org-1}";
        String after = store.prefix() + "#E#user-1#B#api#{org-2}";
        assertThat(redis().exists(before)).isEqualTo(1);

        limiter.admin().setParent("user-1", "org-2");
        assertThat(redis().exists(before)).isZero();
        assertThat(redis().exists(after)).isEqualTo(1);
        assertThat(redis().pttl(after)).as("keeps its time to live").isPositive();

        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();      // reads the changed configuration
        long commands = store.commands();
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        assertThat(store.commands() - commands).as("one run in org-2's slot, and the version").isEqualTo(2);
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 38L);
        assertThat(limiter.available("org-1", "api")).containsEntry("rpm", 40L);
        assertThat(limiter.available("org-2", "api")).containsEntry("rpm", 98L);
    }

    @Test
    void deletingAnEntityRemovesItsBucketsOnEveryNode() {
        limiter.admin().createEntity(Entity.of("user-1"));
        for (String resource : List.of("api", "api2", "api3")) {
            limiter.admin().setResourceDefaults(resource, List.of(Limit.perMinute("rpm", 100)));
            limiter.acquire("user-1", resource, Map.of("rpm", 1L)).close();
        }
        limiter.admin().setLimits("user-1", "api", List.of(Limit.perMinute("rpm", 7)));
        limiter.admin().deleteEntity("user-1");
        assertThat(redis().keys(store.prefix() + "#E#user-1*")).isEmpty();
        assertThat(redis().keys("{" + store.prefix() + "}#E#user-1*")).isEmpty();
    }

    @Test
    void aUriOfTheClusterNodesGivesAStoreOfItsOwn() {
        String nodes = RedisCluster.get().uris().stream().map(u -> u.getHost() + ":" + u.getPort())
                .reduce((a, b) -> a + "," + b).orElseThrow();
        try (RedisStore own = RedisStore.builder().uri("redis-cluster://" + nodes).prefix(store.prefix())
                .clock(clock).requestTimeout(RedisTestStores.REQUEST_TIMEOUT).build()) {
            limiter.acquire("user-1", "api", Map.of("rpm", 3L)).close();
            assertThat(limiter(own).available("user-1", "api")).containsEntry("rpm", 97L);
        }
    }

    @Test
    void aPrefixWithAHashTagIsRefusedOnACluster() {
        assertThatThrownBy(() -> RedisStore.builder().clusterClient(RedisTestStores.clusterClient())
                .prefix("{app}").build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.getMessage())
                        .contains("prefix").contains("hash tags"));
    }

    private static synchronized RedisAdvancedClusterCommands<String, String> redis() {
        if (connection == null) {
            connection = RedisTestStores.clusterClient().connect();
        }
        return connection.sync();
    }
}
