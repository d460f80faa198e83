package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Stops a {@link RateLimiter} from calling a store that keeps failing. The circuit opens when the store has been
 * failing for a while, not at a burst of failures: from a failure on, the breaker watches the calls of one
 * {@link #coolDown()}; when that time is over and at least {@link #failureThreshold()} of them failed with
 * {@link StoreUnavailableException}, making at least half of them, the next failure opens the circuit. Then for a cool-down every
 * decision applies the limiter's {@link Unavailable} policy at once, without calling the store, and one call is let
 * through as a probe (half-open): when the store answers it, the circuit closes; when it fails, the circuit opens
 * for another cool-down. A few slow answers that miss their deadline among answers that arrive (a cold start, a
 * loaded moment) therefore leave the circuit closed. A call is one decision (its configuration read and its bucket
 * write together) or one lease write. Any answer of the store counts as success, a rate-limit rejection included;
 * only {@code StoreUnavailableException} counts as failure, and a {@link ValidationException} (raised before the
 * store is asked) counts as neither. Time comes from the limiter's clock.
 *
 * <p>Every state change is logged. Thread-safe; a closed circuit costs one volatile read per store call.
 *
 * <pre>{@code
 * RateLimiter limiter = RateLimiter.builder().store(store)
 *         .circuitBreaker(5, Duration.ofSeconds(2))     // the defaults
 *         .build();
 * CircuitBreaker.State state = limiter.circuitBreaker().state();
 * }</pre>
 */
public final class CircuitBreaker {

    private static final Logger log = LoggerFactory.getLogger(CircuitBreaker.class);

    /** Store failures within one cool-down that open the circuit when not configured otherwise. */
    public static final int DEFAULT_FAILURE_THRESHOLD = 5;

    /** How long an open circuit stays open before a probe, when not configured otherwise. */
    public static final Duration DEFAULT_COOL_DOWN = Duration.ofSeconds(2);

    /** Where the circuit is. */
    public enum State {
        /** Store calls go ahead; from a failure on, failures and answers are counted for one cool-down. */
        CLOSED,
        /** Store calls are not made: decisions apply the unavailability policy at once, until the cool-down ends. */
        OPEN,
        /** One probe is with the store; other calls are not made until it answers. */
        HALF_OPEN
    }

    private final boolean enabled;
    private final int failureThreshold;
    private final Duration coolDown;
    private final long coolDownMillis;
    private final Clock clock;
    private final LongAdder skipped = new LongAdder();

    private volatile State state = State.CLOSED;
    private volatile int failures;
    private volatile boolean watching;
    private long watchStartedAt;
    private int watchedCalls;
    private int watchedFailures;
    private long openedAt;
    private boolean probing;
    private long probeStartedAt;

    private CircuitBreaker(boolean enabled, int failureThreshold, Duration coolDown, Clock clock) {
        this.enabled = enabled;
        this.failureThreshold = failureThreshold;
        this.coolDown = coolDown;
        this.coolDownMillis = coolDown.toMillis();
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * A circuit breaker on {@code clock}.
     *
     * @throws ValidationException when {@code failureThreshold} is below 1 or {@code coolDown} is not positive
     */
    static CircuitBreaker of(int failureThreshold, Duration coolDown, Clock clock) {
        validate(failureThreshold, coolDown);
        return new CircuitBreaker(true, failureThreshold, coolDown, clock);
    }

    /** A circuit breaker that never opens. */
    static CircuitBreaker disabled(Clock clock) {
        return new CircuitBreaker(false, Integer.MAX_VALUE, DEFAULT_COOL_DOWN, clock);
    }

    static void validate(int failureThreshold, Duration coolDown) {
        if (failureThreshold < 1) {
            throw new ValidationException("circuitBreaker.failureThreshold", failureThreshold,
                    "at least one failure opens the circuit");
        }
        LimitChecks.period("circuitBreaker.coolDown", Arguments.required("circuitBreaker.coolDown", coolDown),
                "a cool-down");
    }

    /** Whether the circuit can open at all ({@code false} when the limiter was built without one). */
    public boolean enabled() {
        return enabled;
    }

    public int failureThreshold() {
        return failureThreshold;
    }

    public Duration coolDown() {
        return coolDown;
    }

    /** The state now. An open circuit whose cool-down has passed stays open until a call probes the store. */
    public State state() {
        return state;
    }

    /** Store calls that failed in a row, since the last one that succeeded. */
    public int consecutiveFailures() {
        return failures;
    }

    /** When an open circuit lets a probe through; empty unless open. */
    public synchronized Optional<Instant> retryAt() {
        return state == State.OPEN ? Optional.of(Instant.ofEpochMilli(openedAt + coolDownMillis)) : Optional.empty();
    }

    /** Store calls not made because the circuit was open (or half-open with a probe under way), since creation. */
    public long skippedCalls() {
        return skipped.sum();
    }

    /**
     * Runs {@code storeCall} unless the circuit is open, and records how it went.
     *
     * @throws StoreUnavailableException without calling the store when the circuit is open, or from the store
     */
    <T> T call(Supplier<T> storeCall) {
        boolean probe = enter();
        Boolean answered = Boolean.TRUE;
        try {
            return storeCall.get();
        } catch (StoreUnavailableException e) {
            answered = Boolean.FALSE;
            throw e;
        } catch (ValidationException e) {
            answered = null;                                   // refused before the store was asked
            throw e;
        } finally {
            if (answered == null) {
                released(probe);
            } else if (answered) {
                succeeded(probe);
            } else {
                failed(probe);
            }
        }
    }

    /**
     * The start of a store call made without {@link #call}: raises as {@code call} does when the circuit is open, and
     * tells whether the call is the probe. The caller then reports how it went with exactly one of
     * {@link #succeeded}, {@link #failed} or {@link #released}, as {@code call} does.
     */
    boolean enter() {
        return state != State.CLOSED && admit();
    }

    /** A call that did not reach the store: says nothing about it; a probe lets another call probe. */
    void released(boolean probe) {
        if (probe) {
            synchronized (this) {
                probing = false;
            }
        }
    }

    /** Decides for a call made while the circuit is not closed: a probe, a plain call, or none (raises). */
    private synchronized boolean admit() {
        long now = clock.millis();
        switch (state) {
            case CLOSED:
                return false;
            case OPEN:
                if (now - openedAt >= coolDownMillis || now < openedAt) {
                    state = State.HALF_OPEN;
                    return startProbe(now);
                }
                break;
            default:                                                      // HALF_OPEN
                if (!probing || now - probeStartedAt >= coolDownMillis || now < probeStartedAt) {
                    return startProbe(now);                               // no probe, or one lost for a cool-down
                }
                break;
        }
        skipped.increment();
        throw new OpenException("store circuit breaker is " + state + " after the store kept failing; the store is"
                + " not called until "
                + Instant.ofEpochMilli((state == State.OPEN ? openedAt : probeStartedAt) + coolDownMillis));
    }

    private boolean startProbe(long now) {
        probing = true;
        probeStartedAt = now;
        log.info("store circuit breaker half-open: probing the store");
        return true;
    }

    void succeeded(boolean probe) {
        if (probe || failures != 0 || watching || state != State.CLOSED) {
            synchronized (this) {
                if (probe && state == State.HALF_OPEN) {
                    state = State.CLOSED;
                    probing = false;
                    log.info("store circuit breaker closed: the store answered");
                }
                if (state == State.CLOSED) {
                    failures = 0;
                    if (watching) {
                        watchedCalls++;
                        long now = clock.millis();
                        if (now < watchStartedAt || now - watchStartedAt >= coolDownMillis) {
                            watching = false;                  // the watch ended on an answer: no outage to judge
                        }
                    }
                }
            }
        }
    }

    /**
     * Ends a call that raised {@code e}: a failure of the store, a call refused before the store was asked, or any
     * other answer.
     */
    void raised(boolean probe, Throwable e) {
        if (e instanceof StoreUnavailableException) {
            failed(probe);
        } else if (e instanceof ValidationException) {
            released(probe);
        } else {
            succeeded(probe);
        }
    }

    void failed(boolean probe) {
        if (!enabled) {
            return;
        }
        synchronized (this) {
            if (probe && state == State.HALF_OPEN) {
                open("the probe failed");
            } else if (state == State.CLOSED) {
                failures = failures + 1;
                long now = clock.millis();
                if (watching) {
                    watchedCalls++;
                    watchedFailures++;
                    judge(now);
                } else {
                    watch(now);
                }
            }
        }
    }

    /** Starts watching the calls of one cool-down at a failure. */
    private void watch(long now) {
        watching = true;
        watchStartedAt = now;
        watchedCalls = 1;
        watchedFailures = 1;
    }

    /**
     * At a failure once a cool-down of watching is over: opens the circuit if the store kept failing, else starts a
     * new watch at this failure. Only a failure opens the circuit, never an answer.
     */
    private void judge(long now) {
        if (now < watchStartedAt) {
            watch(now);                                                   // the clock stepped back: start again
            return;
        }
        if (now - watchStartedAt < coolDownMillis) {
            return;
        }
        if (watchedFailures >= failureThreshold && 2L * watchedFailures >= watchedCalls) {
            open(watchedFailures + " of " + watchedCalls + " store calls failed in " + (now - watchStartedAt)
                    + " ms");
        } else {
            watch(now);
        }
    }

    private void open(String why) {
        state = State.OPEN;
        watching = false;
        probing = false;
        openedAt = clock.millis();
        log.warn("store circuit breaker open: {}; decisions apply the unavailability policy without calling the"
                + " store for {} ms", why, coolDownMillis);
    }

    /** The failure of a call the circuit breaker did not make. */
    static final class OpenException extends StoreUnavailableException {

        OpenException(String message) {
            super(message, null);
        }
    }

    @Override
    public String toString() {
        return enabled ? "CircuitBreaker[" + state + ", " + failures + " failures in a row, threshold "
                + failureThreshold + ", cool-down " + coolDownMillis + " ms]" : "CircuitBreaker[disabled]";
    }
}
