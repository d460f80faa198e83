package dev.zaelimiter.store.memory;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What only the in-memory store does: evicting buckets that are full again. */
class InMemoryStoreTest {

    private final MutableClock clock = MutableClock.start();
    private final InMemoryStore store = new InMemoryStore();
    private final RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();

    @Test
    void evictsBucketsWhoseLifeEndedAndKeepsTheOthers() {
        // rpm's horizon: two fills (2 min) plus an hour after the last write
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        Lease owing = limiter.acquire("user-2", "api", Map.of("rpm", 30L));
        owing.adjust("rpm", 6_000);                                        // owes 5,970: 100 minutes to repay
        owing.close();
        clock.advance(Duration.ofSeconds(1));
        assertThat(store.evictIdle(clock.millis())).as("full, but before its horizon").isZero();

        clock.advance(Duration.ofMinutes(61));
        limiter.acquire("user-3", "api", Map.of("rpm", 1L)).close();
        clock.advance(Duration.ofMinutes(1).minusSeconds(1));              // user-1's and user-2's horizon
        assertThat(store.evictIdle(clock.millis())).as("user-1 only: user-2 owes, user-3 is young").isEqualTo(1);
        assertThat(store.bucketCount()).isEqualTo(2);
        assertThat(limiter.available("user-2", "api")).containsEntry("rpm", -2250L);
        assertThat(limiter.inspect("user-2", "api").limits().get(0).consumed()).isEqualTo(6_030);
        assertThat(limiter.inspect("user-3", "api").limits().get(0).consumed()).isEqualTo(1);
        assertThat(limiter.inspect("user-1", "api").limits().get(0).consumed()).isZero();
    }

    @Test
    void sweepsOnItsOwnAsWritesAccumulate() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", 1)));
        int calls = 300_000;                         // a sweep every 65,536 writes or so, the first one evicting none
        for (int i = 0; i < calls; i++) {
            limiter.acquire("user-" + i, "api", Map.of("rps", 1L));
            clock.advance(Duration.ofMillis(50));    // 4 hours in all: a sweep interval is longer than a horizon
        }
        // rps's horizon is an hour and two seconds: memory holds every key written within it (72,000 keys in the
        // last hour at one write per 50 ms), and, beyond it, at most those written since the sweep before
        int lastHour = 72_000;
        assertThat(store.bucketCount()).as("every bucket of the last hour is kept, whatever it holds")
                .isGreaterThanOrEqualTo(lastHour);
        assertThat(store.bucketCount()).as("older ones go within about two sweep intervals")
                .isLessThanOrEqualTo(lastHour + 2 * 65_536 + 64);
    }

    @Test
    void itsOwnSweepsKeepABucketInUseEvenWhenFullAndRemoveItOnceLeftAloneForAWholeInterval() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        limiter.acquire("user-2", "api", Map.of("rpm", 1L)).close();
        clock.advance(Duration.ofMinutes(62));                             // both full past their horizon

        assertThat(store.sweep(clock.millis())).as("both written since the previous sweep").isZero();
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        clock.advance(Duration.ofMinutes(62));
        assertThat(store.sweep(clock.millis())).as("user-2, alone since the first sweep").isEqualTo(1);
        assertThat(store.bucketCount()).isEqualTo(1);
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 60L);

        clock.advance(Duration.ofMinutes(62));
        assertThat(store.sweep(clock.millis())).as("user-1, alone since the second sweep").isEqualTo(1);
        assertThat(store.bucketCount()).isZero();
    }

    @Test
    void aCorrectionWrittenThroughTheGeneralPathKeepsItsBucketFromTheNextSweep() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        limiter.acquire("user-2", "api", Map.of("rpm", 1L)).close();
        clock.advance(Duration.ofMinutes(62));
        assertThat(store.sweep(clock.millis())).isZero();

        lease.adjust("rpm", 1);                                            // written by apply, not in place
        lease.close();
        clock.advance(Duration.ofMinutes(62));                             // both full past their horizon
        assertThat(store.sweep(clock.millis())).as("user-2 only").isEqualTo(1);
        assertThat(store.bucketCount()).isEqualTo(1);
        assertThat(store.evictIdle(clock.millis())).as("evictIdle drops every bucket whose life ended")
                .isEqualTo(1);
    }

    @Test
    void aBucketIsEvictedOnlyWhenFullUnderTheLimitsInForceNow() {
        // full again under the limits it was written under, but the limits in force since owe or still refill
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        Lease owing = limiter.acquire("user-1", "api", Map.of("rpm", 60L));
        owing.adjust("rpm", 6_000);
        owing.close();
        limiter.acquire("user-2", "api", Map.of("rpm", 60L)).close();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perHour("rpm", 60)));
        limiter.admin().setLimits("user-2", "api", List.of(Limit.perHour("rpm", 60).withBurst(600)));
        clock.advance(Duration.ofHours(5));

        assertThat(store.evictIdle(clock.millis())).as("user-1 owes, user-2 refills to 600").isZero();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", -5_700L);
        assertThat(limiter.available("user-2", "api")).containsEntry("rpm", 300L);
    }

    @Test
    void anEvictedBucketComesBackFull() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 2)));
        limiter.acquire("user-1", "api", Map.of("rpm", 2L));
        clock.advance(Duration.ofMinutes(62));
        assertThat(store.evictIdle(clock.millis())).isEqualTo(1);
        limiter.acquire("user-1", "api", Map.of("rpm", 2L));
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 0L);
    }
}
