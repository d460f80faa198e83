package dev.zaelimiter;

import dev.zaelimiter.CircuitBreaker.State;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The circuit breaker's state machine, on a clock the test moves. */
class CircuitBreakerTest {

    private final MutableClock clock = MutableClock.start();
    private final CircuitBreaker breaker = CircuitBreaker.of(3, Duration.ofSeconds(2), clock);
    private final AtomicInteger storeCalls = new AtomicInteger();

    private String answer() {
        return breaker.call(() -> {
            storeCalls.incrementAndGet();
            return "ok";
        });
    }

    private void fail() {
        assertThatThrownBy(() -> breaker.call(() -> {
            storeCalls.incrementAndGet();
            throw new StoreUnavailableException("down", null);
        })).isInstanceOf(StoreUnavailableException.class).hasMessage("down");
    }

    /** Three failures, and a fourth a cool-down later: the store kept failing for a whole cool-down. */
    private void open() {
        fail();
        fail();
        fail();
        clock.advance(Duration.ofSeconds(2));
        fail();
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        storeCalls.set(0);
    }

    /** A call the open circuit refuses: raises without calling the store. */
    private void skipped() {
        int before = storeCalls.get();
        assertThatThrownBy(this::answer).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("circuit breaker");
        assertThat(storeCalls.get()).isEqualTo(before);
    }

    @Test
    void aClosedCircuitPassesEveryCallAndCountsFailuresInARow() {
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        fail();
        fail();
        assertThat(breaker.consecutiveFailures()).isEqualTo(2);
        assertThat(answer()).isEqualTo("ok");
        assertThat(breaker.consecutiveFailures()).isZero();
        fail();
        fail();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(storeCalls.get()).isEqualTo(5);
        assertThat(breaker.retryAt()).isEmpty();
    }

    @Test
    void failuresForAWholeCoolDownOpenTheCircuitForTheCoolDown() {
        open();
        assertThat(breaker.retryAt()).contains(clock.instant().plusSeconds(2));
        skipped();
        clock.advance(Duration.ofMillis(1999));
        skipped();
        assertThat(breaker.skippedCalls()).isEqualTo(2);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void afterTheCoolDownOneProbeGoesThroughAndItsSuccessClosesTheCircuit() {
        open();
        clock.advance(Duration.ofSeconds(2));
        String probed = breaker.call(() -> {
            assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
            skipped();                                         // a call made while the probe is out
            return "ok";
        });
        assertThat(probed).isEqualTo("ok");
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.consecutiveFailures()).isZero();
        assertThat(answer()).isEqualTo("ok");
        assertThat(answer()).isEqualTo("ok");
        assertThat(breaker.skippedCalls()).isEqualTo(1);
    }

    @Test
    void aFailedProbeOpensTheCircuitForAnotherCoolDownFromTheFailure() {
        open();
        clock.advance(Duration.ofSeconds(5));
        Instant failedAt = clock.instant();
        fail();
        assertThat(storeCalls.get()).isEqualTo(1);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.retryAt()).contains(failedAt.plusSeconds(2));
        clock.advance(Duration.ofSeconds(1));
        skipped();
        clock.advance(Duration.ofSeconds(1));
        assertThat(answer()).isEqualTo("ok");
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void anyAnswerOfTheStoreIsASuccessEvenAnError() {
        fail();
        fail();
        assertThatThrownBy(() -> breaker.call(() -> {
            throw new RateLimitExceededException(java.util.List.of());
        })).isInstanceOf(RateLimitExceededException.class);
        assertThat(breaker.consecutiveFailures()).isZero();

        open();
        clock.advance(Duration.ofSeconds(2));
        assertThatThrownBy(() -> breaker.call(() -> {
            throw new IllegalStateException("a corrupt item");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aValidationErrorRaisedBeforeTheStoreIsAskedSaysNothingAboutIt() {
        Runnable invalid = () -> assertThatThrownBy(() -> breaker.call(() -> {
            throw new ValidationException("entityId", "a b", "no spaces");
        })).isInstanceOf(ValidationException.class);
        fail();
        fail();
        invalid.run();
        assertThat(breaker.consecutiveFailures()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(2));
        fail();
        assertThat(breaker.state()).isEqualTo(State.OPEN);

        clock.advance(Duration.ofSeconds(2));
        invalid.run();                                         // the probe slot is given back
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(answer()).isEqualTo("ok");                  // the next call probes
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aProbeThatNeverAnswersIsReplacedAfterACoolDown() {
        open();
        clock.advance(Duration.ofSeconds(2));
        breaker.call(() -> {
            skipped();                                         // the probe is out
            clock.advance(Duration.ofSeconds(2));              // and still out a cool-down later
            assertThat(answer()).isEqualTo("ok");              // a second probe goes, and closes the circuit
            return "late";
        });
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aClockThatStepsBackDoesNotKeepTheCircuitOpen() {
        open();
        clock.advance(Duration.ofHours(-1));
        assertThat(answer()).isEqualTo("ok");
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void lateAnswersOfCallsMadeBeforeTheCircuitOpenedChangeNothing() {
        fail();
        fail();
        clock.advance(Duration.ofSeconds(2));
        breaker.call(() -> {
            fail();                                            // the third failure opens the circuit meanwhile
            return "answered late";
        });
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.consecutiveFailures()).isEqualTo(3);
    }

    @Test
    void aBurstOfFailuresAmongAnswersLeavesTheCircuitClosed() {
        for (int i = 0; i < 8; i++) {
            fail();                                            // a cold start: the first requests miss the deadline
        }
        for (int i = 0; i < 10; i++) {
            clock.advance(Duration.ofMillis(200));
            assertThat(answer()).isEqualTo("ok");
        }
        fail();
        assertThat(breaker.state()).as("the watch ended on an answer a cool-down in").isEqualTo(State.CLOSED);
        clock.advance(Duration.ofMillis(1999));
        fail();
        fail();
        assertThat(breaker.state()).as("a new watch started at the last failure").isEqualTo(State.CLOSED);
        clock.advance(Duration.ofMillis(1));
        fail();
        assertThat(breaker.state()).as("4 of 4 failed over a cool-down").isEqualTo(State.OPEN);
    }

    @Test
    void anAnswerAfterACoolDownOfFailuresNeverOpensTheCircuit() {
        for (int i = 0; i < 5; i++) {
            fail();
        }
        clock.advance(Duration.ofSeconds(2));
        assertThat(answer()).isEqualTo("ok");
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        fail();
        assertThat(breaker.state()).as("the watch ended on the answer; one failure since").isEqualTo(State.CLOSED);
    }

    @Test
    void anAnswerOnAClockThatSteppedBackEndsTheWatch() {
        for (int i = 0; i < 5; i++) {
            fail();
        }
        clock.advance(Duration.ofHours(-1));
        assertThat(answer()).isEqualTo("ok");
        clock.advance(Duration.ofSeconds(2));
        fail();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void failuresOpenTheCircuitOnlyOnceTheyLastedACoolDown() {
        for (int i = 0; i < 100; i++) {
            fail();
        }
        clock.advance(Duration.ofMillis(1999));
        fail();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        clock.advance(Duration.ofMillis(1));
        fail();
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void aCoolDownOfFewerFailuresThanTheThresholdLeavesTheCircuitClosed() {
        fail();
        fail();
        clock.advance(Duration.ofSeconds(2));
        assertThat(answer()).isEqualTo("ok");
        clock.advance(Duration.ofSeconds(2));
        fail();
        assertThat(breaker.state()).as("the watch ended healthy; one failure since").isEqualTo(State.CLOSED);
    }

    @Test
    void aClockThatStepsBackWhileWatchingStartsTheWatchAgain() {
        fail();
        fail();
        clock.advance(Duration.ofHours(-1));
        fail();
        clock.advance(Duration.ofMillis(1999));
        fail();
        fail();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        clock.advance(Duration.ofMillis(1));
        fail();
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void aDisabledBreakerNeverOpens() {
        CircuitBreaker disabled = CircuitBreaker.disabled(clock);
        for (int i = 0; i < 100; i++) {
            assertThatThrownBy(() -> disabled.call(() -> {
                throw new StoreUnavailableException("down", null);
            })).hasMessage("down");
        }
        assertThat(disabled.state()).isEqualTo(State.CLOSED);
        assertThat(disabled.enabled()).isFalse();
        assertThat(disabled.call(() -> "ok")).isEqualTo("ok");
    }

    @Test
    void settingsAreValidated() {
        assertThatThrownBy(() -> RateLimiter.builder().circuitBreaker(0, Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("circuitBreaker.failureThreshold"));
        assertThatThrownBy(() -> RateLimiter.builder().circuitBreaker(1, Duration.ZERO))
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).isEqualTo("circuitBreaker.coolDown"));
        assertThatThrownBy(() -> RateLimiter.builder().circuitBreaker(1, null))
                .isInstanceOf(ValidationException.class);
        RateLimiter defaults = RateLimiter.builder().build();
        assertThat(defaults.circuitBreaker().enabled()).isTrue();
        assertThat(defaults.circuitBreaker().failureThreshold()).isEqualTo(5);
        assertThat(defaults.circuitBreaker().coolDown()).isEqualTo(Duration.ofSeconds(2));
    }
}
