package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimiterStore;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reads behind {@link RateLimiter#checkAvailability} and {@link RateLimiter#available}: planned as a call
 * would be, through the circuit breaker, never consuming.
 */
final class Peeks {

    private final LimiterStore store;
    private final Clock clock;
    private final CircuitBreaker breaker;
    private final RequestPlanner planner;
    private final UnavailablePolicy unavailable;

    Peeks(LimiterStore store, Clock clock, CircuitBreaker breaker, RequestPlanner planner,
            UnavailablePolicy unavailable) {
        this.store = store;
        this.clock = clock;
        this.breaker = breaker;
        this.planner = planner;
        this.unavailable = unavailable;
    }

    /** A plan and its buckets as they are. */
    private record Peek(RequestPlanner.Plan plan, List<BucketSnapshot> snapshots) {
    }

    /** As {@link RateLimiter#checkAvailability(AcquireRequest)}, {@code request} checked as present. */
    Availability availability(AcquireRequest request) {
        try {
            long now = clock.millis();
            Peek peek = breaker.call(() -> {
                RequestPlanner.Plan planned = planner.plan(request, now);
                return new Peek(planned, store.peek(planned.debits(), now));
            });
            RequestPlanner.Plan plan = peek.plan();
            List<LimitStatus> statuses = RequestPlanner.statuses(plan, peek.snapshots(), false);
            Duration wait = Duration.ZERO;
            boolean allowed = true;
            for (LimitStatus status : statuses) {
                if (status.exceeded()) {
                    allowed = false;
                    wait = wait.compareTo(status.retryAfter()) >= 0 ? wait : status.retryAfter();
                }
            }
            return new Availability(allowed, plan.primaryBypassed(), wait, statuses);
        } catch (ResourcePausedException e) {
            return new Availability(false, false, e.retryAfter(), e.statuses());
        } catch (StoreUnavailableException e) {
            return unavailable.forCall(request.onUnavailable()).availability(e, request);
        }
    }

    /** As {@link RateLimiter#available}. */
    Map<String, Long> available(String entityId, String resource) {
        long now = clock.millis();
        Peek peek = breaker.call(() -> {
            RequestPlanner.Plan planned = planner.plan(AcquireRequest.of(entityId, resource),
                    RequestPlanner.NO_PAUSE_CHECK);
            return new Peek(planned, store.peek(List.of(planned.debits().get(0)), now));
        });
        BucketDebit primary = peek.plan().debits().get(0);
        BucketState state = peek.snapshots().get(0).state();
        Map<String, Long> available = new LinkedHashMap<>();
        for (Limit limit : primary.limits()) {
            available.put(limit.name(), Math.floorDiv(state.balanceMilli(limit.name()), Limits.MILLI));
        }
        return available;
    }
}
