package dev.zaelimiter;

import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The unavailability policy reacts to store errors, and to nothing else. */
class UnavailabilityTest {

    private final MutableClock clock = MutableClock.start();
    private final SwitchableStore store = new SwitchableStore();

    private RateLimiter limiter(Unavailable policy) {
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).onUnavailable(policy).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        return limiter;
    }

    private static StoreUnavailableException down() {
        return new StoreUnavailableException("store down", new RuntimeException("connection refused"));
    }

    @Test
    void blockRaisesTheStoreError() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        store.failWith(down());
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> limiter.checkAvailability("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void allowAdmitsWithALeaseThatRecordsNothing() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        store.failWith(down());
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        assertThat(lease.degraded()).isTrue();
        assertThat(lease.statuses()).isEmpty();
        lease.adjust("rpm", 5);
        lease.rollback();
        assertThatThrownBy(lease::rollback).isInstanceOf(LeaseClosedException.class);
        assertThat(limiter.checkAvailability("user-1", "api", Map.of("rpm", 1L)).allowed()).isTrue();

        store.up();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 1L);
    }

    @Test
    void allowSwallowsAFailedAdjustmentOfARealLease() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        store.failWith(down());
        lease.rollback();
        store.up();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 0L);
    }

    @Test
    void blockRaisesAFailedAdjustment() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        store.failWith(down());
        assertThatThrownBy(() -> lease.adjust("rpm", 1)).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void callKeepsTheCallablesExceptionWhenTheRollbackFailsAndAttachesTheRollbackFailure() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        IOException cause = new IOException("model timed out");

        assertThatThrownBy(() -> limiter.call(AcquireRequest.of("user-1", "api").consume("rpm", 1), () -> {
            store.down();
            throw cause;
        })).isSameAs(cause).satisfies(thrown -> assertThat(thrown.getSuppressed())
                .singleElement().isInstanceOf(StoreUnavailableException.class));
    }

    @Test
    void callKeepsAnUncheckedExceptionTooWhenOnlyTheRollbackWriteFails() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        IllegalStateException cause = new IllegalStateException("bug in the callable");

        assertThatThrownBy(() -> limiter.call(AcquireRequest.of("user-1", "api").consume("rpm", 1), () -> {
            store.downForAdjustments();
            throw cause;
        })).isSameAs(cause).satisfies(thrown -> assertThat(thrown.getSuppressed())
                .singleElement().isInstanceOf(StoreUnavailableException.class));
        store.up();
        assertThat(limiter.available("user-1", "api")).as("the rollback was not written").containsEntry("rpm", 0L);
    }

    @Test
    void programmingErrorsAndRateLimitsAreNeverSwallowed() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        store.failWith(new IllegalStateException("bug in the store"));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(IllegalStateException.class);
        store.up();
        limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThatThrownBy(() -> limiter.acquire("user#1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(ValidationException.class);
    }
}
