package dev.zaelimiter.store.redis;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What each call path costs in round trips, counted by the store ({@link RedisStore#commands()}). Usage history is
 * not flushed here, so that a background flush cannot add to the counts.
 */
class RedisRoundTripsTest {

    private final MutableClock clock = MutableClock.start();
    private RedisStore store;
    private RateLimiter limiter;

    @BeforeEach
    void setUp() {
        store = RedisTestStores.newStore(clock);
        limiter = limiter(store);
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1000),
                Limit.perMinute("tpm", 100_000)));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private RateLimiter limiter(RedisStore on) {
        return limiter(on, clock);
    }

    private static RateLimiter limiter(LimiterStore on, MutableClock clock) {
        return RateLimiter.builder().store(on).clock(clock).usageFlushInterval(Duration.ZERO).build();
    }

    @Test
    void aDecisionOnTwoLimitsIsOneScriptRunOnceTheConfigurationIsKnown() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        long before = store.commands();
        for (int i = 0; i < 50; i++) {
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        }
        assertThat(store.commands() - before).isEqualTo(50);
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 1000L - 51);
    }

    @Test
    void aBucketAsThisProcessKnowsItIsWrittenAsDecidedHereAndOneAnotherWroteIsDecidedByTheScript() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        long reads = serverCalls("hmget");
        long checks = serverCalls("hget");
        long before = store.commands();
        for (int i = 0; i < 20; i++) {
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        }
        assertThat(store.commands() - before).isEqualTo(20);
        assertThat(serverCalls("hget") - checks).as("each run checks the token").isEqualTo(20);
        assertThat(serverCalls("hmget") - reads).as("and never reads the state to decide from it").isZero();

        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            limiter(other).acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
            reads = serverCalls("hmget");
            before = store.commands();
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
            assertThat(store.commands() - before).as("still one run").isEqualTo(1);
            assertThat(serverCalls("hmget") - reads).as("the script decided from the state stored").isEqualTo(1);
        }
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 1000L - 23)
                .containsEntry("tpm", 100_000L - 2_300);
    }

    @Test
    void aRefusalOnABucketLearnedUnderASecondAgoCostsNothingAndLaterOneRunThatWritesNothing() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1000L)).close();
        String key = store.prefix() + "#E#user-1#B#gpt-4";
        Map<String, String> written = redis().hgetall(key);
        long before = store.commands();
        assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(store.commands() - before).isZero();

        clock.advance(Duration.ofSeconds(1));                       // 16 tokens back: not enough for 20
        before = store.commands();
        assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 20L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(store.commands() - before).isEqualTo(1);
        assertThat(redis().hgetall(key)).isEqualTo(written);
    }

    @Test
    void aSlotAnotherProcessGaveBackIsUsableAtOnce() {
        limiter.admin().setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 1, Duration.ofMinutes(1))));
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            RateLimiter second = limiter(other);
            Lease held = limiter.acquire("user-1", "jobs", Map.of());
            assertThatThrownBy(() -> second.acquire("user-1", "jobs", Map.of()))
                    .isInstanceOf(RateLimitExceededException.class);
            held.close();
            long before = other.commands();
            Lease taken = second.acquire("user-1", "jobs", Map.of());
            assertThat(other.commands() - before).as("finds the release, then takes the slot").isEqualTo(2);
            taken.close();
        }
    }

    @Test
    void aCascadeDecidesChildAndParentInOneRun() {
        limiter.admin().createEntity(Entity.of("org-1"));
        limiter.admin().createEntity(new Entity("user-1", null, "org-1", true));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
        long before = store.commands();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
        assertThat(store.commands() - before).isEqualTo(1);
        assertThat(limiter.available("org-1", "gpt-4")).containsEntry("rpm", 998L);

        limiter.acquire("org-1", "gpt-4", Map.of("rpm", 998L)).close();
        clock.advance(Duration.ofSeconds(1));                       // 16 tokens back: not enough for 20
        before = store.commands();
        assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 20L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(store.commands() - before).as("the parent refuses: nothing to give back").isEqualTo(1);
        assertThat(limiter.available("user-1", "gpt-4")).as("the child was not debited").containsEntry("rpm", 1000L);
    }

    @Test
    void aWriteByAnotherProcessCostsNoMoreRunAndIsCountedExactly() {
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            RateLimiter second = limiter(other);
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            second.acquire("user-1", "gpt-4", Map.of("rpm", 10L)).close();
            long before = store.commands();
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            assertThat(store.commands() - before).as("the script decides on the bucket as it is").isEqualTo(1);
            before = store.commands();
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            assertThat(store.commands() - before).isEqualTo(1);
            assertThat(second.available("user-1", "gpt-4")).containsEntry("rpm", 1000L - 13);
        }
    }

    @Test
    void aCascadeOnBucketsAnotherProcessWroteIsOneRun() {
        limiter.admin().createEntity(Entity.of("org-1"));
        limiter.admin().createEntity(new Entity("user-1", null, "org-1", true));
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            RateLimiter second = limiter(other);
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            second.acquire("user-1", "gpt-4", Map.of("rpm", 2L)).close();
            long before = store.commands();
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 3L)).close();
            assertThat(store.commands() - before).as("child and parent, both written by the other process")
                    .isEqualTo(1);
            assertThat(second.available("org-1", "gpt-4")).containsEntry("rpm", 1000L - 6);
        }
    }

    @Test
    void aChildWithoutABucketIsRefusedByItsSpentParentInOneRun() {
        limiter.admin().createEntity(Entity.of("org-1"));
        limiter.admin().createEntity(new Entity("user-1", null, "org-1", true));
        limiter.admin().createEntity(new Entity("user-2", null, "org-1", true));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1000L)).close();
        limiter.available("user-2", "gpt-4");                       // its configuration is loaded
        clock.advance(Duration.ofSeconds(1));                       // 16 tokens back: not enough for 20
        long before = store.commands();
        assertThatThrownBy(() -> limiter.acquire("user-2", "gpt-4", Map.of("rpm", 20L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(store.commands() - before).isEqualTo(1);
        assertThat(redis().exists(store.prefix() + "#E#user-2#B#gpt-4")).as("nothing written").isZero();
        before = store.commands();
        assertThatThrownBy(() -> limiter.acquire("user-2", "gpt-4", Map.of("rpm", 20L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(store.commands() - before).as("found absent and short a moment ago: refused here").isZero();
    }

    @Test
    void theFirstCallOfAProcessOnABucketThatExistsIsOneRun() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 5L)).close();
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            RateLimiter second = limiter(other);
            long before = other.commands();
            second.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            assertThat(other.commands() - before).as("the configuration, then one run").isEqualTo(2);
            assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 1000L - 6);
        }
    }

    @Test
    void aBucketWrittenUnderOtherLimitsIsWrittenWholeOnceThenDecidedByTheScriptAgain() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 5L)).close();
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            RateLimiter second = limiter(other);
            second.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 500)));
            long before = other.commands();
            second.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            assertThat(other.commands() - before).as("configuration, a run that finds other limits, a whole write")
                    .isEqualTo(3);
            before = other.commands();
            second.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            assertThat(other.commands() - before).isEqualTo(1);
            assertThat(second.available("user-1", "gpt-4")).as("995 cut down to the new capacity, then two taken")
                    .containsEntry("rpm", 500L - 2);
        }
    }

    @Test
    void aQuotaPastItsResetIsWrittenWholeOnceThenDecidedByTheScriptAgain() {
        limiter.admin().setResourceDefaults("reports", List.of(Limit.fixedWindow("runs", 10, Duration.ofSeconds(10))));
        limiter.acquire("user-1", "reports", Map.of("runs", 10L)).close();
        clock.advance(Duration.ofSeconds(10));
        long before = store.commands();
        long writes = store.writeModeRuns();
        limiter.acquire("user-1", "reports", Map.of("runs", 3L)).close();
        assertThat(store.commands() - before).as("a reset may have passed: written whole").isEqualTo(1);
        assertThat(store.writeModeRuns() - writes).as("in write mode").isEqualTo(1);
        before = store.commands();
        limiter.acquire("user-1", "reports", Map.of("runs", 3L)).close();
        assertThat(store.commands() - before).isEqualTo(1);
        assertThat(store.writeModeRuns() - writes).as("then decided by the script").isEqualTo(1);
        assertThat(limiter.available("user-1", "reports")).containsEntry("runs", 4L);
    }

    @Test
    void aProcessWhoseClockIsBehindTheLastWriteIsDecidedByTheScriptAtThatWrite() {
        MutableClock fast = new MutableClock(Instant.parse("2026-12-02T12:00:00Z"));
        MutableClock slow = new MutableClock(Instant.parse("2026-12-02T11:59:59.995Z"));
        InMemoryStore memory = new InMemoryStore();
        try (RedisStore a = RedisTestStores.builder(fast).build();
             RedisStore b = RedisTestStores.builder(slow).prefix(a.prefix()).build()) {
            List<RateLimiter> onFast = List.of(limiter(a, fast), limiter(memory, fast));
            List<RateLimiter> onSlow = List.of(limiter(b, slow), limiter(memory, slow));
            for (RateLimiter each : List.of(onFast.get(0), onFast.get(1))) {
                each.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", 1000)));
            }
            onFast.get(0).available("user-1", "api");
            onSlow.get(0).available("user-1", "api");                           // configuration loaded on both
            long before = b.commands();
            for (int i = 0; i < 20; i++) {
                sameAnswers(onFast, Map.of("rps", 1L + i % 3));
                sameAnswers(onSlow, Map.of("rps", 2L));
                fast.advance(Duration.ofMillis(1));
                slow.advance(Duration.ofMillis(1));
            }
            assertThat(b.commands() - before).as("one run per call on the slow host").isEqualTo(20);
            assertThat(b.writeModeRuns()).isZero();
            assertThat(onSlow.get(0).available("user-1", "api")).isEqualTo(onSlow.get(1).available("user-1", "api"));
        }
    }

    @Test
    void aRaceLostInWriteModeIsDecidedAgainByTheScript() {
        limiter.admin().setResourceDefaults("reports", List.of(Limit.fixedWindow("runs", 10, Duration.ofSeconds(10))));
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            RateLimiter second = limiter(other);
            limiter.acquire("user-1", "reports", Map.of("runs", 1L)).close();
            clock.advance(Duration.ofSeconds(10));                          // this process knows a reset passed
            second.acquire("user-1", "reports", Map.of("runs", 2L)).close(); // and the other one writes first
            long before = store.commands();
            long writes = store.writeModeRuns();
            limiter.acquire("user-1", "reports", Map.of("runs", 3L)).close();
            assertThat(store.commands() - before).isEqualTo(2);
            assertThat(store.writeModeRuns() - writes).as("the lost race, then the script").isEqualTo(1);
            assertThat(second.available("user-1", "reports")).containsEntry("runs", 5L);
        }
    }

    private static void sameAnswers(List<RateLimiter> limiters, Map<String, Long> amounts) {
        try (Lease onRedis = limiters.get(0).acquire("user-1", "api", amounts);
             Lease inMemory = limiters.get(1).acquire("user-1", "api", amounts)) {
            assertThat(onRedis.statuses()).isEqualTo(inMemory.statuses());
        }
    }

    @Test
    void aChangeMadeByAnotherProcessIsInForceFromTheSecondDecisionAfterIt() {
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            limiter(other).admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 2)));
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();   // decided on what it had read
            assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 2L));
        }
    }

    @Test
    void aScriptFlushedFromTheServerIsLoadedAgainWithOneMoreCommand() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
        redis().scriptFlush();
        long before = store.commands();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
        assertThat(store.commands() - before).isEqualTo(2);
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 998L);
    }

    /** How many times the server ran {@code command}, scripts' calls included ({@code INFO commandstats}). */
    private static long serverCalls(String command) {
        String stats = redis().info("commandstats");
        int at = stats.indexOf("cmdstat_" + command + ":calls=");
        if (at < 0) {
            return 0;
        }
        int from = at + ("cmdstat_" + command + ":calls=").length();
        return Long.parseLong(stats.substring(from, stats.indexOf(',', from)));
    }

    private static RedisCommands<String, String> redis() {
        return RedisTestStores.connection().sync();
    }
}
