package dev.zaelimiter;

import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decisions the in-memory store makes in place count their usage in the bucket itself; what the history then shows
 * is exactly what was decided, across hour boundaries, evictions, resets, deletions, threads and flushes running
 * beside the calls.
 */
class InPlaceUsageTest {

    private static final Instant FROM = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant TO = Instant.parse("2027-01-01T00:00:00Z");
    private static final Map<String, Long> ONE = Map.of("rps", 1L);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-02T10:59:59.500Z"));
    private final InMemoryStore store = new InMemoryStore();
    private final RateLimiter limiter = RateLimiter.builder().store(store).clock(clock)
            .usageFlushInterval(Duration.ZERO).build();

    private List<Usage> hours(String entity) {
        limiter.flushUsage();
        return limiter.admin().usage(entity, "api", "rps", UsageGranularity.HOUR, FROM, TO);
    }

    private List<Usage> days(String entity) {
        return limiter.admin().usage(entity, "api", "rps", UsageGranularity.DAY, FROM, TO);
    }

    @Test
    void countsAdmittedAndRefusedCallsInTheHourOfEachDecision() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", 2)));
        for (int i = 0; i < 3; i++) {
            limiter.tryAcquire("user-1", "api", ONE);                  // 2 admitted, 1 refused at 10:59:59.5
        }
        clock.advance(Duration.ofMillis(600));                           // 11:00:00.1
        limiter.acquire("user-1", "api", Map.of("rps", 1L)).close();

        List<Usage> hours = hours("user-1");
        assertThat(hours).extracting(Usage::from).containsExactly(Instant.parse("2026-03-02T10:00:00Z"),
                Instant.parse("2026-03-02T11:00:00Z"));
        assertThat(hours).extracting(Usage::admitted).containsExactly(2L, 1L);
        assertThat(hours).extracting(Usage::refused).containsExactly(1L, 0L);
        assertThat(hours).extracting(Usage::consumed).containsExactly(2L, 1L);
        assertThat(days("user-1")).singleElement().satisfies(day -> {
            assertThat(day.admitted()).isEqualTo(3);
            assertThat(day.refused()).isEqualTo(1);
        });
    }

    @Test
    void countsSurviveEvictionResetAndDeletionOfTheirBucket() {
        clock.set(Instant.parse("2026-03-02T10:15:00Z"));
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", 5)));
        limiter.acquire("user-1", "api", ONE).close();
        limiter.acquire("user-2", "api", ONE).close();
        limiter.acquire("user-3", "api", ONE).close();
        limiter.admin().createEntity("user-3");

        clock.advance(Duration.ofHours(1).plusSeconds(2));               // every bucket's life ended
        assertThat(store.evictIdle(clock.millis())).isEqualTo(3);
        limiter.acquire("user-2", "api", ONE).close();
        limiter.admin().resetBucket("user-2", "api");
        limiter.acquire("user-3", "api", ONE).close();
        limiter.admin().deleteEntity("user-3");

        assertThat(days("user-1")).extracting(Usage::admitted).containsExactly(1L);
        assertThat(days("user-2")).extracting(Usage::admitted).containsExactly(2L);
        assertThat(days("user-3")).extracting(Usage::admitted).containsExactly(2L);
    }

    @Test
    void countsOverdrawnSoftLimitsAndBypassedCalls() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rps", 1).soft()));
        limiter.acquire("user-1", "api", Map.of("rps", 3L)).close();      // into debt
        limiter.admin().setEntityDisabled("user-2", "api", DisabledMode.BYPASS);
        limiter.acquire("user-2", "api", Map.of("rps", 4L)).close();
        limiter.acquire("user-2", "api", Map.of("rps", 4L)).close();

        assertThat(hours("user-1")).singleElement().satisfies(hour -> {
            assertThat(hour.overdrawn()).isEqualTo(1);
            assertThat(hour.consumed()).isEqualTo(3);
        });
        assertThat(hours("user-2")).singleElement().satisfies(hour -> {
            assertThat(hour.bypassed()).isEqualTo(8);
            assertThat(hour.consumed()).isZero();
            assertThat(hour.admitted()).isEqualTo(2);
        });
    }

    @Test
    void amountsBeyondWhatTheBucketsCountersHoldAreCountedInFull() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perDay("rps", 1_000_000_000L)));
        for (int i = 0; i < 3; i++) {
            limiter.acquire("user-1", "api", Map.of("rps", 1_500_000L)).close();   // 1.5e9 milli-tokens each
        }
        limiter.acquire("user-1", "api", Map.of("rps", 3_000_000L)).close();      // more than an int on its own
        limiter.acquire("user-1", "api", ONE).close();

        assertThat(hours("user-1")).singleElement().satisfies(hour -> {
            assertThat(hour.consumed()).isEqualTo(7_500_001L);
            assertThat(hour.admitted()).isEqualTo(5);
        });
    }

    @Test
    void aBucketSwitchedBetweenBypassAndLimitsWithinAnHourKeepsBothAmountsApart() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rps", 100)));
        limiter.acquire("user-1", "api", Map.of("rps", 2L)).close();
        limiter.admin().setEntityDisabled("user-1", "api", DisabledMode.BYPASS);
        limiter.acquire("user-1", "api", Map.of("rps", 5L)).close();
        limiter.acquire("user-1", "api", Map.of("rps", 5L)).close();
        limiter.admin().clearEntityDisabled("user-1", "api");
        limiter.acquire("user-1", "api", Map.of("rps", 3L)).close();

        assertThat(hours("user-1")).singleElement().satisfies(hour -> {
            assertThat(hour.consumed()).isEqualTo(5);
            assertThat(hour.bypassed()).isEqualTo(10);
            assertThat(hour.admitted()).isEqualTo(4);
        });
    }

    @Test
    void decisionsFarBeyondTheHoursAnIntCountsAreCountedToo() {
        Instant farFuture = Instant.parse("+300000-06-01T10:15:00Z");
        clock.set(farFuture);
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", 2)));
        for (int i = 0; i < 3; i++) {
            limiter.tryAcquire("user-1", "api", ONE);
        }

        limiter.flushUsage();
        List<Usage> hours = limiter.admin().usage("user-1", "api", "rps", UsageGranularity.HOUR,
                farFuture.minus(Duration.ofDays(1)), farFuture.plus(Duration.ofDays(1)));
        assertThat(hours).singleElement().satisfies(hour -> {
            assertThat(hour.from()).isEqualTo(Instant.parse("+300000-06-01T10:00:00Z"));
            assertThat(hour.admitted()).isEqualTo(2);
            assertThat(hour.refused()).isEqualTo(1);
        });
    }

    @Test
    void aLimiterWithoutHistoryOnTheSameStoreCountsNothingAndTheOtherEverything() {
        RateLimiter silent = RateLimiter.builder().store(store).clock(clock).noUsageHistory().build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", 100)));
        silent.acquire("user-1", "api", ONE).close();
        silent.acquire("user-1", "api", ONE).close();                    // a plain bucket, decided in place
        limiter.acquire("user-1", "api", ONE).close();
        limiter.acquire("user-1", "api", ONE).close();                   // the bucket now counts
        silent.acquire("user-1", "api", ONE).close();

        assertThat(hours("user-1")).extracting(Usage::admitted).containsExactly(2L);
        assertThat(limiter.available("user-1", "api")).containsEntry("rps", 95L);
    }

    @Test
    void threadsCountingAcrossAnHourWhileFlushesRunCountEveryDecisionOnce() throws Exception {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rps", 3_000)));
        int threads = 4;
        int calls = 2_000;
        AtomicLong admitted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String entity = t < 3 ? "user-1" : "user-3";
            Thread worker = new Thread(() -> {
                await(start);
                for (int i = 0; i < calls; i++) {
                    Attempt attempt = limiter.tryAcquire(entity, "api", ONE);
                    (attempt.admitted() ? admitted : refused).incrementAndGet();
                    if (attempt.admitted()) {
                        attempt.lease().close();
                    }
                }
            });
            worker.start();
            workers.add(worker);
        }
        Thread flusher = new Thread(() -> {
            await(start);
            while (!done.get()) {
                limiter.flushUsage();
                store.evictIdle(clock.millis());
            }
        });
        flusher.start();
        start.countDown();
        clock.advance(Duration.ofSeconds(1));                            // into the next hour, mid-run
        for (Thread worker : workers) {
            worker.join();
        }
        done.set(true);
        flusher.join();

        long countedAdmitted = 0;
        long countedRefused = 0;
        for (String entity : List.of("user-1", "user-3")) {                // threads 0-2 on user-1, 3 on user-3
            for (Usage hour : hours(entity)) {
                countedAdmitted += hour.admitted();
                countedRefused += hour.refused();
            }
        }
        assertThat(countedAdmitted).isEqualTo(admitted.get());
        assertThat(countedRefused).isEqualTo(refused.get());
        assertThat(admitted.get() + refused.get()).isEqualTo((long) threads * calls);
        assertThat(refused.get()).as("demand above the limit").isPositive();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
