package dev.zaelimiter;

import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.InPlaceBuckets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The decision of one call, waiting for nothing: the in-place decision when the store offers one and the call fits
 * it, the store's {@code tryAcquire} otherwise; the circuit breaker, the unavailability policy, the usage counts and
 * the listener around it. {@link RateLimiter} waits, raises and validates around this.
 */
final class Decider {

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);

    private final LimiterStore store;
    private final Clock clock;
    private final UnavailablePolicy unavailable;
    private final LeaseWrites leaseWrites;
    private final RateLimiterListener listener;
    private final CircuitBreaker breaker;
    private final UndebitedParents undebitedParents;
    private final RequestPlanner planner;
    /** The usage counts, or {@code null} when no history is kept. */
    private final UsageRecorder usage;
    /** The store's in-place decisions, or {@code null} when every decision goes through {@code tryAcquire}. */
    private final InPlaceBuckets local;

    Decider(LimiterStore store, Clock clock, UnavailablePolicy unavailable, LeaseWrites leaseWrites,
            RateLimiterListener listener, CircuitBreaker breaker, UsageRecorder usage, InPlaceBuckets local) {
        this.store = store;
        this.clock = clock;
        this.unavailable = unavailable;
        this.leaseWrites = leaseWrites;
        this.listener = listener;
        this.breaker = breaker;
        this.undebitedParents = new UndebitedParents(clock, listener);
        this.planner = new RequestPlanner(store, usage != null, local);
        this.usage = usage;
        this.local = local;
    }

    /** The planner, which {@link RateLimiter}'s reads share with the decisions (and its caches). */
    RequestPlanner planner() {
        return planner;
    }

    /**
     * One decision, waiting for nothing: the {@link Lease}, or the refusal: when {@code raise}, the
     * {@link RateLimitExceededException} that {@code acquire} is about to raise (so that no {@link Refusal} is made
     * only to carry it), otherwise a {@link Refusal}. Raises for a pause and for what is no refusal. {@code given}
     * is the request, or {@code null} for a call of one target without wait or override made by its parts (the
     * request is then made only if a path other than the in-place decision needs it).
     */
    Object attemptOnce(AcquireRequest given, String entityId, String resource, Map<String, Long> consume,
            boolean raise) {
        return attemptOnce(given, entityId, resource, consume, raise, 0);
    }

    /**
     * As {@link #attemptOnce(AcquireRequest, String, String, Map, boolean)}, also booking up to
     * {@code horizonMillis} ahead ({@link LimiterStore#tryAcquire(List, long, long)}): a booked lease says its wait
     * ({@link DefaultLease#bookedWaitMillis}). A call that books goes through the store's {@code tryAcquire}.
     */
    Object attemptOnce(AcquireRequest given, String entityId, String resource, Map<String, Long> consume,
            boolean raise, long horizonMillis) {
        UnavailablePolicy policy = given == null ? unavailable : unavailable.forCall(given.onUnavailable());
        LeaseWrites writes = policy == unavailable ? leaseWrites : leaseWrites.with(policy);
        long started = listener == null ? 0 : System.nanoTime();
        long now = clock.millis();
        boolean probe;
        RequestPlanner.PlanBasis lone;
        OneLimitLease one = null;
        boolean admitted = false;
        try {
            probe = breaker.enter();
            try {
                lone = given == null ? planner.lone(entityId, resource, consume) : planner.lone(given);
                RequestPlanner.Amounts inPlace = lone == null || local == null || horizonMillis > 0 ? null
                        : RequestPlanner.oneLimit(lone, entityId, resource, consume, now);
                if (inPlace != null) {
                    BucketKey key = new BucketKey(entityId, resource);
                    one = new OneLimitLease(writes, lone, key, inPlace, now);
                    admitted = local.takeOne(key, inPlace.take(), now, OneLimitLease.OUTCOME, one);
                }
            } catch (RuntimeException | Error e) {
                breaker.raised(probe, e);
                throw e;
            }
        } catch (ResourcePausedException e) {
            notify(entityId, resource, Decision.Outcome.REFUSED, List.of(), writes, started);
            throw e;
        } catch (StoreUnavailableException e) {
            return degraded(e, given, entityId, resource, consume, now, writes, started);
        }
        if (one == null) {
            return planned(given, entityId, resource, consume, lone, probe, now, writes, started, raise,
                    horizonMillis);
        }
        breaker.succeeded(probe);
        // the store counted the decision's usage itself
        if (admitted) {
            if (listener != null) {
                notify(entityId, resource, one.bypassed() ? Decision.Outcome.BYPASSED : Decision.Outcome.ADMITTED,
                        one.statuses(), writes, started);
            }
            return one;
        }
        if (raise) {
            RateLimitExceededException refused = new RateLimitExceededException(OneLimitLease.REFUSAL, one);
            notify(entityId, resource, Decision.Outcome.REFUSED, listener == null ? List.of() : refused.statuses(),
                    writes, started);
            return refused;
        }
        Refusal refusal = Refusal.explainedBy(OneLimitLease.REFUSAL, one);
        notify(entityId, resource, Decision.Outcome.REFUSED, listener == null ? List.of() : refusal.statuses(),
                writes, started);
        return refusal;
    }

    /**
     * {@link #attemptOnce} for a call the store does not decide in place: planned, and decided by the store's
     * {@code tryAcquire}, under the circuit breaker's {@code probe}. A method of its own, and one above the JIT's
     * size for inlining a frequent call (325 bytes of bytecode), so that it stays out of {@code attemptOnce}'s
     * compiled code: once planned calls were frequent too, inlining them there first spent the compiler's budget,
     * left the in-place path's calls out of line and tripled the compiled method. ({@code attemptOnce} is above
     * that size too, so that {@code acquire}, which raises its refusal, stays small enough to inline into callers.)
     */
    private Object planned(AcquireRequest given, String entityId, String resource, Map<String, Long> consume,
            RequestPlanner.PlanBasis lone, boolean probe, long now, LeaseWrites writes, long started, boolean raise,
            long horizonMillis) {
        RequestPlanner.Plan plan;
        AcquireResult result;
        try {
            try {
                AcquireRequest request = given != null ? given : AcquireRequest.of(entityId, resource, consume);
                plan = planner.plan(request, now, lone);
                result = horizonMillis > 0 ? store.tryAcquire(plan.debits(), now, horizonMillis)
                        : store.tryAcquire(plan.debits(), now);
            } catch (RuntimeException | Error e) {
                breaker.raised(probe, e);
                throw e;
            }
            breaker.succeeded(probe);
        } catch (ResourcePausedException e) {
            notify(entityId, resource, Decision.Outcome.REFUSED, List.of(), writes, started);
            throw e;
        } catch (StoreUnavailableException e) {
            return degraded(e, given, entityId, resource, consume, now, writes, started);
        }
        if (!result.admitted()) {
            List<LimitStatus> statuses = RequestPlanner.statuses(plan, result.buckets(), false);
            if (usage != null) {
                usage.refused(statuses, now);
            }
            notify(entityId, resource, Decision.Outcome.REFUSED, statuses, writes, started);
            RateLimitExceededException refused = new RateLimitExceededException(statuses,
                    slotsRefused(plan, statuses), false);
            if (horizonMillis > 0) {
                refused.bookingHorizonMillis = bookingHorizon(plan.debits(), now);
            }
            return raise ? refused : Refusal.of(refused);
        }
        DefaultLease lease = new DefaultLease(writes, plan, atSlot(plan, result, now), result.waitMillis());
        if (usage != null) {
            usage.admitted(plan.debits(), lease::statuses, now);
        }
        if (listener != null) {
            notify(entityId, resource, plan.primaryBypassed() ? Decision.Outcome.BYPASSED
                    : Decision.Outcome.ADMITTED, lease.statuses(), writes, started);
        }
        if (!plan.undebited().isEmpty()) {
            plan.undebited().forEach(undebitedParents::report);
        }
        return lease;
    }

    /**
     * How far ahead a store books a call of {@code debits} at most, whatever the waiter's horizon: the shortest
     * {@link BucketDebit#bookingHorizon} of its bookable debits, zero when none is bookable.
     */
    static long bookingHorizon(List<BucketDebit> debits, long now) {
        long horizon = Long.MAX_VALUE;
        boolean bookable = false;
        for (BucketDebit debit : debits) {
            if (debit.bookable()) {
                bookable = true;
                horizon = Math.min(horizon, debit.bookingHorizon(now, Long.MAX_VALUE));
            }
        }
        return bookable ? horizon : 0;
    }

    /** A call the store could not decide: the lease the unavailability policy gives (or its exception). */
    private Lease degraded(StoreUnavailableException e, AcquireRequest given, String entityId, String resource,
            Map<String, Long> consume, long now, LeaseWrites writes, long started) {
        AcquireRequest request = given != null ? given : AcquireRequest.of(entityId, resource, consume);
        Lease lease = writes.policy().admit(e, request);
        if (usage != null) {
            usage.degraded(request, now);
        }
        notify(entityId, resource, Decision.Outcome.DEGRADED, List.of(), writes, started);
        return lease;
    }

    /**
     * The buckets as {@code result} left them, for a booking as they will be when its slot comes, with nothing else
     * taken meanwhile: what the caller, admitted then, sees.
     */
    private static List<BucketSnapshot> atSlot(RequestPlanner.Plan plan, AcquireResult result, long now) {
        if (result.waitMillis() == 0) {
            return result.buckets();
        }
        List<BucketSnapshot> atSlot = new ArrayList<>(result.buckets().size());
        for (int i = 0; i < result.buckets().size(); i++) {
            BucketSnapshot booked = result.buckets().get(i);
            atSlot.add(new BucketSnapshot(booked.key(), booked.state().refilled(plan.debits().get(i).limits(),
                    BucketMath.saturatedAdd(Math.max(now, booked.state().lastRefillMillis()), result.waitMillis()))));
        }
        return atSlot;
    }

    /** Whether a concurrency limit is among the violations. */
    private static boolean slotsRefused(RequestPlanner.Plan plan, List<LimitStatus> statuses) {
        for (LimitStatus status : statuses) {
            if (status.exceeded()) {
                for (BucketDebit debit : plan.debits()) {
                    if (debit.key().entityId().equals(status.entityId())) {
                        for (Limit limit : debit.limits()) {
                            if (limit.name().equals(status.limitName()) && limit.isConcurrency()) {
                                return true;
                            }
                        }
                    }
                }
            }
        }
        return false;
    }

    private void notify(String entityId, String resource, Decision.Outcome outcome, List<LimitStatus> statuses,
            LeaseWrites writes, long started) {
        if (listener != null) {
            try {
                listener.onDecision(new Decision(entityId, resource, outcome, statuses,
                        Duration.ofNanos(System.nanoTime() - started), writes.policy().policy()));
            } catch (RuntimeException e) {
                log.warn("rate limiter listener failed", e);
            }
        }
    }
}
