package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The saturation benchmark of {@code docs/performance.md} on one controllable clock: one {@code perSecond(50)}
 * bucket called at five times its rate by several stores on one prefix (processes) taking turns, a call every 4 ms.
 * Counts the commands each call sent and holds them against the targets of issue 26.
 */
class RedisSaturationTest {

    private static final long RATE = 50;
    private static final long RUN_MILLIS = 5_000;
    private static final long BUCKET = RATE + RATE * RUN_MILLIS / 1_000;

    /** What the calls of one run did. */
    private record Tally(long admitted, long refused, long commandsAdmitted, long commandsRefused) {

        double perAdmitted() {
            return (double) commandsAdmitted / admitted;
        }

        double perRefused() {
            return (double) commandsRefused / refused;
        }
    }

    @Test
    void threeProcessesSharingASaturatedBucketAskRedisForFewOfTheirRefusals() {
        Tally tally = run(3);

        assertThat(tally.admitted()).as("exact: at most the capacity and the refill of 5 s")
                .isLessThanOrEqualTo(BUCKET);
        assertThat(tally.admitted()).as("and close to it: a contended process refuses only while others take")
                .isGreaterThanOrEqualTo(BUCKET * 95 / 100);
        assertThat(tally.perAdmitted()).as("commands per admitted call").isLessThanOrEqualTo(1.0);
        assertThat(tally.perRefused()).as("commands per refused call (0.5 before processes counted their rivals)")
                .isLessThanOrEqualTo(0.1);
    }

    @Test
    void oneProcessKeepsItsFigures() {
        Tally tally = run(1);

        assertThat(tally.admitted()).as("the capacity and the refill to the last call").isEqualTo(BUCKET - 1);
        assertThat(tally.perAdmitted()).isLessThanOrEqualTo(1.0);
        assertThat(tally.perRefused()).isLessThanOrEqualTo(0.01);
    }

    private Tally run(int processes) {
        MutableClock clock = MutableClock.start();
        List<RedisStore> stores = new ArrayList<>();
        stores.add(RedisTestStores.newStore(clock));
        for (int p = 1; p < processes; p++) {
            stores.add(RedisTestStores.builder(clock).prefix(stores.get(0).prefix()).build());
        }
        try {
            List<RateLimiter> limiters = new ArrayList<>();
            for (RedisStore store : stores) {
                limiters.add(RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                        .build());
            }
            limiters.get(0).admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", RATE)));
            limiters.forEach(limiter -> limiter.available("u", "api"));     // the configuration, loaded once
            long[] counts = new long[4];
            long intervalMillis = 1_000 / (RATE * 5);
            for (long call = 0; call * intervalMillis < RUN_MILLIS; call++) {
                RedisStore store = stores.get((int) (call % processes));
                long before = store.commands();
                boolean admitted;
                try {
                    limiters.get((int) (call % processes)).acquire("u", "api", Map.of("rps", 1L)).close();
                    admitted = true;
                } catch (RateLimitExceededException refused) {
                    admitted = false;
                }
                counts[admitted ? 0 : 1]++;
                counts[admitted ? 2 : 3] += store.commands() - before;
                clock.advance(Duration.ofMillis(intervalMillis));
            }
            return new Tally(counts[0], counts[1], counts[2], counts[3]);
        } finally {
            stores.forEach(RedisStore::close);
        }
    }
}
