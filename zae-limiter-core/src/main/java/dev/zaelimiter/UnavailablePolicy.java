package dev.zaelimiter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * The one place that applies {@link Unavailable} when the store fails: under {@link Unavailable#BLOCK} the failure
 * is raised, under {@link Unavailable#ALLOW} the call goes on without the store (an unrecorded lease, an allowed
 * availability, a lease write not recorded) and the failure is logged: a warning, or a debug line when the circuit
 * breaker refused the call (it logged once when it opened).
 */
final class UnavailablePolicy {

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);

    private static final UnavailablePolicy BLOCK = new UnavailablePolicy(Unavailable.BLOCK);
    private static final UnavailablePolicy ALLOW = new UnavailablePolicy(Unavailable.ALLOW);

    private final Unavailable policy;

    private UnavailablePolicy(Unavailable policy) {
        this.policy = policy;
    }

    static UnavailablePolicy of(Unavailable policy) {
        return policy == Unavailable.ALLOW ? ALLOW : BLOCK;
    }

    /** The policy of a call whose request sets {@code own}: this one when it sets none. */
    UnavailablePolicy forCall(Unavailable own) {
        return own == null ? this : of(own);
    }

    Unavailable policy() {
        return policy;
    }

    /** The lease of a call the store could not decide: raises under BLOCK, an unrecorded lease under ALLOW. */
    Lease admit(StoreUnavailableException e, AcquireRequest request) {
        absorb(e, "store unavailable, admitting {} without debiting it: {}", request, e.getMessage());
        return DefaultLease.unrecorded();
    }

    /** The availability of a call the store could not check: raises under BLOCK, allowed under ALLOW. */
    Availability availability(StoreUnavailableException e, AcquireRequest request) {
        absorb(e, "store unavailable, reporting {} as available: {}", request, e.getMessage());
        return new Availability(true, false, Duration.ZERO, List.of());
    }

    /** Raises {@code e} under BLOCK; logs it under ALLOW, so that the caller goes on without the store. */
    void absorb(StoreUnavailableException e, String format, Object... args) {
        if (policy == Unavailable.BLOCK) {
            throw e;
        }
        if (e instanceof CircuitBreaker.OpenException) {
            log.debug(format, args);
        } else {
            log.warn(format, args);
        }
    }
}
