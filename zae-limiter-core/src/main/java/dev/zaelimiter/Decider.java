package dev.zaelimiter;

import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.internal.algorithm.BucketMath;
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
        AcquireRequest request = given;
        UnavailablePolicy policy = given == null ? unavailable : unavailable.forCall(given.onUnavailable());
        LeaseWrites writes = policy == unavailable ? leaseWrites : leaseWrites.with(policy);
        long started = listener == null ? 0 : System.nanoTime();
        RequestPlanner.Plan plan = null;
        AcquireResult result = null;
        OneLimitLease one = null;
        boolean admitted;
        long now = clock.millis();
        try {
            boolean probe = breaker.enter();
            try {
                RequestPlanner.PlanBasis lone = given == null ? planner.lone(entityId, resource, consume)
                        : planner.lone(given);
                RequestPlanner.Amounts inPlace = lone == null || local == null || horizonMillis > 0 ? null
                        : RequestPlanner.oneLimit(lone, entityId, resource, consume, now);
                if (inPlace != null) {
                    BucketKey key = new BucketKey(entityId, resource);
                    one = new OneLimitLease(writes, lone, key, inPlace, now);
                    admitted = local.takeOne(key, inPlace.take(), now, OneLimitLease.OUTCOME, one);
                } else {
                    request = request != null ? request : AcquireRequest.of(entityId, resource, consume);
                    plan = planner.plan(request, now, lone);
                    result = horizonMillis > 0 ? store.tryAcquire(plan.debits(), now, horizonMillis)
                            : store.tryAcquire(plan.debits(), now);
                    admitted = result.admitted();
                }
            } catch (StoreUnavailableException e) {
                breaker.failed(probe);
                throw e;
            } catch (ValidationException e) {
                breaker.released(probe);                      // refused before the store was asked
                throw e;
            } catch (RuntimeException | Error e) {
                breaker.succeeded(probe);
                throw e;
            }
            breaker.succeeded(probe);
        } catch (ResourcePausedException e) {
            notify(entityId, resource, Decision.Outcome.REFUSED, List.of(), writes, started);
            throw e;
        } catch (StoreUnavailableException e) {
            request = request != null ? request : AcquireRequest.of(entityId, resource, consume);
            Lease lease = writes.policy().admit(e, request);
            if (usage != null) {
                usage.degraded(request, now);
            }
            notify(entityId, resource, Decision.Outcome.DEGRADED, List.of(), writes, started);
            return lease;
        }
        if (one != null) {
            return decidedInPlace(entityId, resource, one, admitted, writes, started, raise);
        }
        if (!admitted) {
            List<LimitStatus> statuses = RequestPlanner.statuses(plan, result.buckets(), false);
            if (usage != null) {
                usage.refused(statuses, now);
            }
            notify(entityId, resource, Decision.Outcome.REFUSED, statuses, writes, started);
            RateLimitExceededException refused = new RateLimitExceededException(statuses,
                    slotsRefused(plan, statuses), false);
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
     * What follows a decision the store made in place (which counted its usage too): the listener, and the lease or
     * the refusal.
     */
    private Object decidedInPlace(String entityId, String resource, OneLimitLease one, boolean admitted,
            LeaseWrites writes, long started, boolean raise) {
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
