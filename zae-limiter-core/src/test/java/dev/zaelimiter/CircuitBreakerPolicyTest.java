package dev.zaelimiter;

import dev.zaelimiter.CircuitBreaker.State;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limiter with its circuit breaker: once open, decisions apply the unavailability policy without calling the
 * store, until a probe after the cool-down finds it back.
 */
class CircuitBreakerPolicyTest {

    private final MutableClock clock = MutableClock.start();
    private final SwitchableStore store = new SwitchableStore();
    private final List<Decision> decisions = new CopyOnWriteArrayList<>();

    /** What the store raises once the test expects no call to reach it. */
    private static final RuntimeException NOT_CALLED = new IllegalStateException("the store was called");

    private RateLimiter limiter(Unavailable policy) {
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).onUnavailable(policy)
                .circuitBreaker(3, Duration.ofSeconds(10)).listener(decisions::add).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100),
                Limit.concurrency("slots", 10)));
        return limiter;
    }

    private void breakAndOpen(RateLimiter limiter) {
        store.down();
        for (int i = 0; i < 4; i++) {
            if (i == 3) {
                clock.advance(Duration.ofSeconds(10));          // the store kept failing for a whole cool-down
            }
            try {
                limiter.acquire("user-1", "api", Map.of("rpm", 1L));
            } catch (StoreUnavailableException expected) {
                // BLOCK
            }
        }
        assertThat(limiter.circuitBreaker().state()).isEqualTo(State.OPEN);
        store.failWith(NOT_CALLED);
    }

    @Test
    void blockRaisesAtOnceWithoutCallingTheStoreWhileOpen() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        breakAndOpen(limiter);

        for (int i = 0; i < 100; i++) {
            String entity = "user-" + i % 7;
            assertThatThrownBy(() -> limiter.acquire(entity, "api", Map.of("rpm", 1L)))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("circuit breaker is OPEN");
        }
        assertThatThrownBy(() -> limiter.checkAvailability("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(limiter.circuitBreaker().skippedCalls()).isEqualTo(101);
    }

    @Test
    void allowAdmitsDegradedLeasesWithoutCallingTheStoreWhileOpen() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        breakAndOpen(limiter);
        decisions.clear();

        for (int i = 0; i < 100; i++) {
            try (Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L))) {
                assertThat(lease.degraded()).isTrue();
            }
        }
        assertThat(limiter.checkAvailability("user-1", "api", Map.of("rpm", 1L)).allowed()).isTrue();
        assertThat(decisions).hasSize(100).allSatisfy(d -> assertThat(d.outcome())
                .isEqualTo(Decision.Outcome.DEGRADED));
    }

    @Test
    void leaseWritesGoThroughTheBreakerToo() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        Lease held = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        breakAndOpen(limiter);

        held.adjust("rpm", 5);                                 // not recorded, the store not called
        assertThat(held.extend()).isFalse();
        held.close();
        assertThat(limiter.circuitBreaker().skippedCalls()).isEqualTo(3);
    }

    @Test
    void afterTheCoolDownAProbeFindsTheStoreBackAndDecisionsUseItAgain() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        breakAndOpen(limiter);
        store.up();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);

        clock.advance(Duration.ofSeconds(10));
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));

        assertThat(lease.degraded()).isFalse();
        assertThat(limiter.circuitBreaker().state()).isEqualTo(State.CLOSED);
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 99L);
    }

    @Test
    void aProbeThatFailsKeepsTheCircuitOpenForAnotherCoolDown() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        breakAndOpen(limiter);
        store.down();
        clock.advance(Duration.ofSeconds(10));

        assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).degraded()).isTrue();   // the probe

        store.failWith(NOT_CALLED);
        clock.advance(Duration.ofSeconds(9));
        assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).degraded()).isTrue();
        assertThat(limiter.circuitBreaker().state()).isEqualTo(State.OPEN);
    }

    @Test
    void rejectionsAndValidationErrorsAreAnswersNotFailures() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        limiter.admin().setResourceDefaults("tiny", List.of(Limit.perMinute("rpm", 1)));
        limiter.acquire("user-1", "tiny", Map.of("rpm", 1L));
        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> limiter.acquire("user-1", "tiny", Map.of("rpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);
            assertThatThrownBy(() -> limiter.acquire("user-1", "tiny", Map.of("nope", 1L)))
                    .isInstanceOf(UnknownLimitException.class);
        }
        assertThat(limiter.circuitBreaker().state()).isEqualTo(State.CLOSED);
        assertThat(limiter.circuitBreaker().consecutiveFailures()).isZero();
    }

    @Test
    void withoutABreakerEveryDecisionCallsTheStore() {
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).noCircuitBreaker().build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
        store.down();
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("down (test)");
        }
        assertThat(limiter.circuitBreaker().state()).isEqualTo(State.CLOSED);
        assertThat(limiter.circuitBreaker().enabled()).isFalse();
    }
}
