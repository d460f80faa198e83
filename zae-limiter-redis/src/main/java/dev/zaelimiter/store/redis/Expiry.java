package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;

import java.math.BigInteger;
import java.util.List;

/**
 * How long Redis keeps a bucket key: past its horizon and past the instant it is full again under the limits in
 * force, plus an hour for clocks that differ, so that the key goes only once reading it would give a new bucket.
 */
final class Expiry {

    static final long HOUR = 3_600_000L;
    /** The longest time to live set: beyond it a bucket keeps none (Redis refuses expiry times past its range). */
    static final long MAX_TTL = 20L * 366 * 24 * HOUR;
    /**
     * How much sooner than the time to live the limits in force ask for a key may go before a call that writes
     * nothing extends it: less than the hour added for clocks, so that clocks that differ never cause one.
     */
    static final long SLACK = HOUR / 2;

    private Expiry() {
    }

    /**
     * The time to live of a bucket in {@code state} (refilled to its last instant) under {@code kept}, at
     * {@code now}: 0 for none, when it owes something no known instant pays back or is full again only more than
     * 20 years on. A limit with a schedule is taken as full again once its balance, refilled at the slowest rate of
     * its schedule, reaches its largest capacity: the refill of a scheduled limit runs at the rate in force when it
     * is made, so that bound holds whichever windows come.
     */
    static long timeToLive(BucketState state, List<Limit> kept, long endsAfter, long now) {
        long until = endsAfter;
        for (Limit limit : kept) {
            long capacity = Limits.parametersAt(limit, state.lastRefillMillis()).capacityMilli();
            if (state.balanceMilli(limit.name()) >= capacity && state.limits().containsKey(limit.name())) {
                continue;
            }
            long wait = limit.schedule().isEmpty() ? state.retryAfterMillis(limit, capacity)
                    : scheduledWait(limit, state);
            if (wait == BucketMath.NEVER) {
                return 0;
            }
            until = Math.max(until, BucketMath.saturatedAdd(state.lastRefillMillis(), wait));
        }
        long ttl = BucketMath.saturatedAdd(until - Math.min(now, until), HOUR);
        return ttl > MAX_TTL ? 0 : ttl;
    }

    /**
     * Whether a key with {@code pttl} left (Redis's answer: negative for no expiry or no key) goes too soon for a
     * bucket that needs {@code needed} ({@link #timeToLive}; negative for nothing).
     */
    static boolean tooSoon(long pttl, long needed) {
        return needed >= 0 && pttl >= 0 && (needed == 0 || pttl < needed - SLACK);
    }

    /** A bound on how long {@code limit}, which has a schedule, takes from {@code state} to be full again. */
    private static long scheduledWait(Limit limit, BucketState state) {
        LimitState s = state.limits().get(limit.name());
        long last = state.lastRefillMillis();
        if (s == null) {
            return 0;
        }
        if (limit.isConcurrency()) {
            long latest = last;
            for (long expiry : s.holders().values()) {
                latest = Math.max(latest, expiry);
            }
            return latest - last;
        }
        if (Limits.refillAmountMilli(limit) == 0) {
            long reset = Limits.nextResetAfter(limit, last);
            if (reset != Limits.NEVER) {
                return reset - last;
            }
            return s.inWindow() && limit.resetAfter().isPresent()
                    ? BucketMath.saturatedAdd(s.windowStartMillis(), limit.resetAfter().get().toMillis()) - last
                    : BucketMath.NEVER;
        }
        Fill fill = fill(limit);
        long wait = BucketMath.retryAfterMillis(s.balanceMilli(), fill.capacityMilli(), fill.capacityMilli(),
                fill.amountMilli(), fill.periodMillis(), last);
        return wait == BucketMath.NEVER ? wait : BucketMath.saturatedAdd(wait, fill.extraMillis());
    }

    /**
     * What a dripping limit's expiry counts: the capacity it fills to, the rate it fills at, and a wait added to
     * that. For a limit with a schedule, its largest capacity at the slowest rate of its windows (or the base), plus
     * one period of that rate.
     */
    record Fill(long capacityMilli, long amountMilli, long periodMillis, long extraMillis) {
    }

    /** The {@link Fill} of {@code limit}, a dripping limit with a schedule. */
    static Fill fill(Limit limit) {
        long amount = Limits.refillAmountMilli(limit);
        long period = Limits.refillPeriodMillis(limit);
        for (ScheduleEntry entry : limit.schedule()) {
            long a = entry.isScaled() ? Math.max(1, (long) Math.floor(amount * entry.scale()))
                    : entry.refillPeriod() == null ? amount : entry.refillAmount() * Limits.MILLI;
            long p = entry.isScaled() || entry.refillPeriod() == null ? period : entry.refillPeriod().toMillis();
            if (slower(a, p, amount, period)) {
                amount = a;
                period = p;
            }
        }
        return new Fill(Limits.maxCapacityMilli(limit), amount, period, period);
    }

    /** Whether {@code a1} per {@code p1} is a slower rate than {@code a2} per {@code p2}. */
    private static boolean slower(long a1, long p1, long a2, long p2) {
        return BigInteger.valueOf(a1).multiply(BigInteger.valueOf(p2))
                .compareTo(BigInteger.valueOf(a2).multiply(BigInteger.valueOf(p1))) < 0;
    }
}
