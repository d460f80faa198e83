package dev.zaelimiter;

import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

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
    void aDegradedAdmissionIsCountedInUsageMarkedDegraded() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        store.failWith(down());
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        limiter.acquire(AcquireRequest.of("user-1", "api").consume("rpm", 1).also("org-1", "api", Map.of("rpm", 4L)))
                .close();
        store.up();

        Instant hour = UsageGranularity.HOUR.periodStart(clock.instant());
        assertThat(limiter.admin().usage("user-1", UsageGranularity.HOUR, hour, hour.plusSeconds(3600)))
                .extracting(Usage::consumed, Usage::admitted, Usage::degraded).containsExactly(tuple(1L, 3L, 2L));
        assertThat(limiter.admin().usage("org-1", UsageGranularity.HOUR, hour, hour.plusSeconds(3600)))
                .extracting(Usage::consumed, Usage::admitted, Usage::degraded).containsExactly(tuple(0L, 1L, 4L));
    }

    @Test
    void aRequestChoosesItsOwnPolicyAndTheLeaseAndListenerSayWhichApplied() {
        List<Decision> decisions = new ArrayList<>();
        RateLimiter failsOpen = RateLimiter.builder().store(store).clock(clock).onUnavailable(Unavailable.ALLOW)
                .listener(decisions::add).build();
        failsOpen.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        AcquireRequest login = AcquireRequest.of("user-1", "api").consume("rpm", 1).onUnavailable(Unavailable.BLOCK);
        AcquireRequest read = AcquireRequest.of("user-1", "api").consume("rpm", 1);
        assertThat(failsOpen.acquire(login).onUnavailable()).isEqualTo(Unavailable.BLOCK);
        assertThat(failsOpen.acquire(read).onUnavailable()).isEqualTo(Unavailable.ALLOW);
        assertThat(failsOpen.acquire("user-1", "api", Map.of("rpm", 1L)).onUnavailable())
                .isEqualTo(Unavailable.ALLOW);

        store.failWith(down());
        assertThatThrownBy(() -> failsOpen.acquire(login)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> failsOpen.checkAvailability(login)).isInstanceOf(StoreUnavailableException.class);
        Lease degraded = failsOpen.acquire(read);
        assertThat(degraded.degraded()).isTrue();
        assertThat(degraded.onUnavailable()).isEqualTo(Unavailable.ALLOW);
        assertThat(failsOpen.acquire(login.onUnavailable(null)).degraded()).as("back to the limiter's").isTrue();
        assertThat(decisions).extracting(Decision::outcome, Decision::onUnavailable).containsExactly(
                tuple(Decision.Outcome.ADMITTED, Unavailable.BLOCK), tuple(Decision.Outcome.ADMITTED, Unavailable.ALLOW),
                tuple(Decision.Outcome.ADMITTED, Unavailable.ALLOW), tuple(Decision.Outcome.DEGRADED, Unavailable.ALLOW),
                tuple(Decision.Outcome.DEGRADED, Unavailable.ALLOW));

        store.up();
        RateLimiter failsClosed = limiter(Unavailable.BLOCK);
        Lease open = failsClosed.acquire(read.onUnavailable(Unavailable.ALLOW));
        store.failWith(down());
        assertThat(failsClosed.acquire(read.onUnavailable(Unavailable.ALLOW)).degraded()).isTrue();
        open.adjust("rpm", 1);                          // its own policy: the failed write is logged, not raised
        assertThatThrownBy(() -> failsClosed.acquire(read)).isInstanceOf(StoreUnavailableException.class);
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
