package dev.zaelimiter.store;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.algorithm.LimitRules;

import java.util.Arrays;
import java.util.List;

/**
 * {@link BucketState#retryAfterMillis}: the walk forward along a limit's schedule, segment by segment, to the first
 * instant at which the stored bucket, refilled to it, covers a request.
 */
final class ScheduleWalk {

    private ScheduleWalk() {
    }

    /** {@link BucketState#retryAfterMillis} of {@code refilled}. */
    static long retryAfterMillis(BucketState refilled, Limit limit, long needMilli) {
        if (refilled.balanceMilli(limit.name()) >= needMilli) {
            return 0;
        }
        if (needMilli > Limits.maxCapacityMilli(limit)) {
            return BucketMath.NEVER;
        }
        BucketState stored = refilled.origin();
        long now = refilled.lastRefillMillis();
        long from = now;
        for (int step = 0; step < BucketState.MAX_SCHEDULE_STEPS; step++) {
            long until = Limits.nextChangeAfter(limit, from);
            long admitted = firstAdmission(stored, limit, needMilli, from, until, step == 0 ? refilled : null);
            if (admitted != BucketMath.NEVER) {
                return admitted - now;
            }
            if (until == Limits.NEVER) {
                return BucketMath.NEVER;
            }
            from = until;
        }
        return from - now;
    }

    /**
     * The first instant in {@code [from, until)}, a span in which {@code limit}'s parameters do not change, at which
     * {@code stored} refilled to it covers {@code needMilli}; {@link BucketMath#NEVER} when there is none. Within such a
     * span a refilled balance only grows, and only continuously (a drip) or at a few instants (a reset edge, the end
     * of a session, a slot's expiry), so the first instant is {@code from} or one of those; each candidate is checked
     * with {@link BucketState#refilled} itself. {@code knownAtFrom}, when given, is {@code stored} refilled to
     * {@code from}.
     */
    private static long firstAdmission(BucketState stored, Limit limit, long needMilli, long from, long until,
            BucketState knownAtFrom) {
        long lastRefillMillis = stored.lastRefillMillis();
        Limits.Parameters p = Limits.parametersAt(limit, from);
        if (needMilli > p.capacityMilli()) {
            return BucketMath.NEVER;
        }
        LimitState state = stored.limits().get(limit.name());
        long[] candidates;
        if (state == null) {
            candidates = new long[] {from};
        } else if (limit.isConcurrency()) {
            candidates = new long[state.holders().size() + 1];
            candidates[0] = from;
            int i = 1;
            for (long expiry : state.holders().values()) {
                candidates[i++] = expiry;
            }
        } else if (p.drips()) {
            long wait = BucketMath.retryAfterMillis(Math.min(state.balanceMilli(), p.capacityMilli()), needMilli,
                    p.capacityMilli(), p.refillAmountMilli(), p.refillPeriodMillis(), lastRefillMillis);
            candidates = new long[] {from, BucketMath.saturatedAdd(lastRefillMillis, wait)};
        } else {
            candidates = new long[] {from, Limits.nextResetAfter(limit, lastRefillMillis),
                    state.inWindow() ? LimitRules.sessionEnd(limit, state.windowStartMillis()) : Long.MAX_VALUE};
        }
        Arrays.sort(candidates);
        List<Limit> one = List.of(limit);
        for (long candidate : candidates) {
            if (candidate >= until) {
                break;
            }
            long at = Math.max(candidate, from);
            BucketState then = at == from && knownAtFrom != null ? knownAtFrom : stored.refilled(one, at);
            if (then.balanceMilli(limit.name()) >= needMilli) {     // a need of zero: out of debt
                return at;
            }
        }
        return BucketMath.NEVER;
    }
}
