package dev.zaelimiter;

import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.ForwardingStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** The in-process side of usage history: exact flushes through failures, lost answers and duplicates. */
class UsageRecorderTest {

    private static final Instant START = Instant.parse("2026-03-01T00:00:00Z");
    private static final Instant LATER = START.plus(Duration.ofDays(3));
    private final MutableClock clock = MutableClock.start();

    @Test
    void aFailedFlushKeepsItsCountsAndALostAnswerIsNotCountedTwice() {
        SwitchableStore store = new SwitchableStore();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .noCircuitBreaker().build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
        acquire(limiter, 4);

        store.down();
        assertThatThrownBy(limiter::flushUsage).isInstanceOf(StoreUnavailableException.class);
        store.up();
        store.loseNextUsageAnswer();
        assertThatThrownBy(limiter::flushUsage).as("the write landed, its answer did not")
                .isInstanceOf(StoreUnavailableException.class);
        acquire(limiter, 3);
        limiter.flushUsage();   // sends the unanswered write again (not counted twice), the new counts wait
        limiter.flushUsage();

        assertThat(admitted(limiter, UsageGranularity.HOUR)).isEqualTo(7);
        assertThat(admitted(limiter, UsageGranularity.DAY)).isEqualTo(7);
    }

    @Test
    void duplicatedWritesAreIgnoredAndCloseWritesWhatIsLeft() {
        ForwardingStore store = new ForwardingStore(new InMemoryStore());
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
        acquire(limiter, 5);
        store.duplicateUsageWrites(2);
        limiter.flushUsage();
        acquire(limiter, 2);
        limiter.close();

        assertThat(store.duplicatedUsageWrites()).isEqualTo(2);
        RateLimiter reader = RateLimiter.builder().store(store).clock(clock).build();
        assertThat(admitted(reader, UsageGranularity.HOUR)).isEqualTo(7);
        assertThat(admitted(reader, UsageGranularity.DAY)).isEqualTo(7);
    }

    @Test
    void aPeriodTheStoreCannotTakeDoesNotHoldBackTheOthers() {
        ForwardingStore store = new ForwardingStore(new InMemoryStore());
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
        store.failUsageOf("user-0", () -> new StoreUnavailableException("user-0's partition is down", null));
        limiter.acquire("user-0", "api", Map.of("rpm", 1L)).close();
        acquire(limiter, 3);

        assertThatThrownBy(limiter::flushUsage).isInstanceOf(StoreUnavailableException.class);
        assertThat(admitted(limiter, UsageGranularity.HOUR)).as("user-1 is written despite user-0").isEqualTo(3);
        acquire(limiter, 2);
        assertThatThrownBy(limiter::flushUsage).isInstanceOf(StoreUnavailableException.class);
        assertThat(admitted(limiter, UsageGranularity.HOUR)).as("and again at the next flush").isEqualTo(5);

        store.healUsageOf("user-0");
        limiter.flushUsage();
        assertThat(limiter.admin().usage("user-0", "api", "rpm", UsageGranularity.HOUR, START, LATER))
                .extracting(Usage::admitted).as("nothing of user-0 was lost").containsExactly(1L);
    }

    @Test
    void aWriteTheStoreRejectsIsSetAsideAfterAFewAttempts() {
        ForwardingStore store = new ForwardingStore(new InMemoryStore());
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
        store.failUsageOf("user-0", () -> new ValidationException("usage period", "user-0", "item too large"));
        limiter.acquire("user-0", "api", Map.of("rpm", 1L)).close();
        acquire(limiter, 3);

        for (int attempt = 1; attempt < UsageRecorder.MAX_REJECTIONS; attempt++) {
            assertThatThrownBy(limiter::flushUsage).isInstanceOf(ValidationException.class);
        }
        assertThatThrownBy(limiter::flushUsage).as("the last attempt still reports the rejection")
                .isInstanceOf(ValidationException.class);
        int failed = store.failedUsageWrites();
        limiter.flushUsage();
        assertThat(store.failedUsageWrites()).as("set aside: not sent again").isEqualTo(failed);

        acquire(limiter, 2);
        limiter.flushUsage();
        assertThat(admitted(limiter, UsageGranularity.HOUR)).isEqualTo(5);
        assertThat(admitted(limiter, UsageGranularity.DAY)).isEqualTo(5);
    }

    @Test
    void aRefusalCountsOnlyOnTheLimitsThatWereExceeded() {
        RateLimiter limiter = RateLimiter.builder().store(new InMemoryStore()).clock(clock)
                .usageFlushInterval(Duration.ZERO).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1), Limit.perMinute("tpm", 1000)));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L, "tpm", 10L)).close();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L, "tpm", 10L)))
                .isInstanceOf(RateLimitExceededException.class);

        assertThat(limiter.admin().usage("user-1", UsageGranularity.HOUR, START, LATER))
                .extracting(Usage::limitName, Usage::admitted, Usage::refused)
                .containsExactly(tuple("rpm", 1L, 1L), tuple("tpm", 1L, 0L));
    }

    @Test
    void manyThreadsAcrossAnHourBoundaryAreCountedExactly() throws Exception {
        InMemoryStore store = new InMemoryStore();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1_000_000)));
        AtomicLong admitted = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            done.add(pool.submit(() -> {
                for (int i = 0; i < 2000; i++) {
                    limiter.acquire("user-" + (i % 3), "api", Map.of("rpm", 1L));
                    admitted.incrementAndGet();
                }
            }));
        }
        for (int i = 0; i < 20; i++) {
            limiter.flushUsage();                  // flushes race the calls
            if (i == 10) {
                clock.advance(Duration.ofMinutes(90));
            }
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        limiter.flushUsage();

        long hours = 0;
        for (Usage usage : limiter.admin().topUsage("api", "rpm", UsageGranularity.HOUR, START, LATER, 10)) {
            hours += usage.admitted();
        }
        assertThat(hours).isEqualTo(admitted.get()).isEqualTo(8000);
    }

    @Test
    void theInMemoryHistoryDropsTheOldestPeriodsFirst() {
        InMemoryStore store = new InMemoryStore(2, 100);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
        for (int hour = 0; hour < 3; hour++) {
            acquire(limiter, hour + 1);
            limiter.flushUsage();
            clock.advance(Duration.ofHours(1));
        }
        assertThat(limiter.admin().usage("user-1", UsageGranularity.HOUR, START, LATER))
                .extracting(Usage::from, Usage::admitted)
                .containsExactly(tuple(START.plusSeconds(3600), 2L), tuple(START.plusSeconds(7200), 3L));
        assertThat(admitted(limiter, UsageGranularity.DAY)).isEqualTo(6);
        assertThatThrownBy(() -> new InMemoryStore(0, 1)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("maxUsagePeriods");
    }

    @Test
    void aStoreWithoutHistoryRecordsNothingAndSaysSoWhenAsked() {
        ForwardingStore store = ForwardingStore.withoutHistory(new InMemoryStore());
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        acquire(limiter, 1);
        limiter.flushUsage();
        assertThatThrownBy(() -> limiter.admin().usage("user-1", UsageGranularity.HOUR, START, LATER))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("no usage history");
        assertThatThrownBy(() -> RateLimiter.builder().usageFlushInterval(Duration.ofMillis(5)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("usageFlushInterval");
    }

    private static void acquire(RateLimiter limiter, int calls) {
        for (int i = 0; i < calls; i++) {
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        }
    }

    private static long admitted(RateLimiter limiter, UsageGranularity granularity) {
        return limiter.admin().usage("user-1", "api", "rpm", granularity, START, LATER).stream()
                .mapToLong(Usage::admitted).sum();
    }
}
