package dev.zaelimiter.contract;

import dev.zaelimiter.Lease;
import dev.zaelimiter.LeaseClosedException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Concurrency limits: slots taken by acquire, given back once by close or rollback, or by their lease timeout. */
public abstract class ConcurrencyLimitContract extends StoreContractSupport {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @BeforeEach
    void limits() {
        admin.setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 2, TIMEOUT),
                Limit.perMinute("rpm", 1000)));
    }

    private long free(String entity) {
        return limiter.available(entity, "jobs").get("inflight");
    }

    @Test
    void acquireTakesASlotAndCloseGivesItBackOnce() {
        Lease first = limiter.acquire("user-1", "jobs", consume("rpm", 1));
        Lease second = limiter.acquire("user-1", "jobs", consume("rpm", 1));
        assertThat(free("user-1")).isZero();
        RateLimitExceededException e = catchExceeded(() -> limiter.acquire("user-1", "jobs", consume("rpm", 1)));
        assertThat(e.violations()).extracting(LimitStatus::limitName).containsExactly("inflight");
        assertThat(e.retryAfter()).as("until the oldest slot would expire").isEqualTo(TIMEOUT);

        first.close();
        first.close();
        assertThat(free("user-1")).isEqualTo(1);
        second.rollback();
        assertThat(free("user-1")).isEqualTo(2);
        assertThat(limiter.available("user-1", "jobs")).containsEntry("rpm", 999L);
    }

    @Test
    void anAbandonedSlotComesBackAfterTheLeaseTimeout() {
        limiter.acquire("user-1", "jobs", consume("rpm", 1));
        Lease kept = limiter.acquire("user-1", "jobs", consume("rpm", 1));
        clock.advance(TIMEOUT.minusSeconds(10));
        assertThat(kept.extend()).isTrue();
        clock.advance(Duration.ofSeconds(10));
        assertThat(free("user-1")).as("the abandoned slot expired, the extended one did not").isEqualTo(1);
        limiter.acquire("user-1", "jobs", consume("rpm", 1));
        assertThatThrownBy(() -> limiter.acquire("user-1", "jobs", consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void extendingAnExpiredSlotSaysSo() {
        Lease lease = limiter.acquire("user-1", "jobs", consume("rpm", 1));
        clock.advance(TIMEOUT.plusSeconds(1));
        limiter.acquire("user-1", "jobs", consume("rpm", 1));
        limiter.acquire("user-1", "jobs", consume("rpm", 1));
        assertThat(lease.extend()).isFalse();
        lease.close();
        assertThat(free("user-1")).as("closing an expired lease frees nobody else's slot").isZero();
    }

    @Test
    void aSlotCanBeSkippedButNotDoubled() {
        limiter.acquire("user-1", "jobs", Map.of("rpm", 1L, "inflight", 0L));
        assertThat(free("user-1")).isEqualTo(2);
        assertThatThrownBy(() -> limiter.acquire("user-1", "jobs", Map.of("inflight", 2L)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("one slot");
        Lease lease = limiter.acquire("user-1", "jobs", consume("rpm", 1));
        assertThatThrownBy(() -> lease.adjust("inflight", 1)).isInstanceOf(ValidationException.class);
        lease.close();
        assertThatThrownBy(lease::extend).isInstanceOf(LeaseClosedException.class);
    }

    @Test
    void aRateRejectionTakesNoSlot() {
        admin.setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 2, TIMEOUT),
                Limit.perMinute("rpm", 1)));
        limiter.acquire("user-1", "jobs", consume("rpm", 1)).close();
        assertThatThrownBy(() -> limiter.acquire("user-1", "jobs", consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(free("user-1")).isEqualTo(2);
    }

    @Test
    void aConcurrencyLimitTurnedIntoARateLimitStartsFullAndKeepsItsConsumption() {
        limiter.acquire("user-1", "jobs", consume("rpm", 1)).close();
        limiter.acquire("user-1", "jobs", consume("rpm", 1));
        admin.setResourceDefaults("jobs", List.of(Limit.perHour("inflight", 56), Limit.perMinute("rpm", 1000)));

        assertThat(free("user-1")).as("free slots are no balance").isEqualTo(56);
        assertThat(limiter.inspect("user-1", "jobs").limits()).filteredOn(v -> v.name().equals("inflight"))
                .singleElement().satisfies(v -> assertThat(v.consumed()).isEqualTo(2));
        limiter.acquire("user-1", "jobs", consume("inflight", 6));
        assertThat(free("user-1")).isEqualTo(50);
    }

    @Test
    void manyThreadsNeverHoldMoreThanTheLimit() throws Exception {
        admin.setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 3, TIMEOUT)));
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < callsPerThread(); i++) {
                        try (Lease lease = limiter.acquire("user-1", "jobs", Map.of())) {
                            int now = inFlight.incrementAndGet();
                            most.accumulateAndGet(now, Math::max);
                            admitted.incrementAndGet();
                            Thread.yield();
                            inFlight.decrementAndGet();
                        } catch (RateLimitExceededException busy) {
                            // all slots taken
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(most.get()).isLessThanOrEqualTo(3);
        assertThat(admitted.get()).isGreaterThanOrEqualTo(3);
        assertThat(free("user-1")).isEqualTo(3);
    }

    /** Acquires per thread in {@link #manyThreadsNeverHoldMoreThanTheLimit}. */
    protected int callsPerThread() {
        return 2000;
    }

    private static RateLimitExceededException catchExceeded(Runnable call) {
        try {
            call.run();
        } catch (RateLimitExceededException e) {
            return e;
        }
        throw new AssertionError("expected RateLimitExceededException");
    }
}
