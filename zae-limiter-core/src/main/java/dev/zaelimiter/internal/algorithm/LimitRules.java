package dev.zaelimiter.internal.algorithm;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;

import java.time.Duration;

/**
 * The refill, debit and session rules of one limit that holds tokens (not a concurrency limit), written once over
 * the plain values of its state: its balance, its consumption and the start of its session. A state kept as a
 * record ({@code BucketState}) and one kept in a bucket's own fields (the in-memory store's in-place decision) both
 * follow them, the second without allocating.
 */
public final class LimitRules {

    /** The session start of a limit in no session; the same value as {@code LimitState.NO_WINDOW}. */
    public static final long NO_WINDOW = Long.MIN_VALUE;

    private LimitRules() {
    }

    /**
     * The balance of {@code limit}, {@code balanceMilli} at {@code last} with its session started at
     * {@code windowStartMillis}, brought to {@code now} with the parameters {@code p} in force at the later of the
     * two: a dripping limit refills; a quota whose reset edge passed, or whose session ended, starts over full; a
     * session quota outside a session is full (a balance kept from a limit of another kind, or from before a
     * capacity change, belongs to no session that could ever end and give it back); any other is clipped to the
     * capacity.
     */
    public static long refilledBalance(Limit limit, Limits.Parameters p, long balanceMilli, long windowStartMillis,
            long last, long now) {
        if (p.drips()) {
            return BucketMath.refill(balanceMilli, p.capacityMilli(), p.refillAmountMilli(), p.refillPeriodMillis(),
                    last, now);
        }
        if (restarts(limit, windowStartMillis, last, now)
                || windowStartMillis == NO_WINDOW && limit.resetAfter().isPresent()) {
            return p.capacityMilli();
        }
        return Math.min(balanceMilli, p.capacityMilli());
    }

    /** The session start that goes with {@link #refilledBalance}: none once the quota started over. */
    public static long refilledWindow(Limit limit, Limits.Parameters p, long windowStartMillis, long last, long now) {
        return !p.drips() && restarts(limit, windowStartMillis, last, now) ? NO_WINDOW : windowStartMillis;
    }

    /** Whether a limit that does not drip starts over full at {@code now}: a reset edge passed, or its session ended. */
    private static boolean restarts(Limit limit, long windowStartMillis, long last, long now) {
        return now > last && Limits.nextResetAfter(limit, last) <= now
                || windowStartMillis != NO_WINDOW && now >= sessionEnd(limit, windowStartMillis);
    }

    /** When the session of {@code limit} that started at {@code windowStartMillis} ends (never for no session quota). */
    public static long sessionEnd(Limit limit, long windowStartMillis) {
        Duration length = limit.resetAfter().orElse(null);
        return length == null ? Long.MAX_VALUE : BucketMath.saturatedAdd(windowStartMillis, length.toMillis());
    }

    /** The balance after taking {@code amountMilli}, unchecked; a count-only debit (a bypassed entity's) leaves it. */
    public static long debitedBalance(long balanceMilli, long amountMilli, boolean countOnly) {
        return countOnly ? balanceMilli : BucketMath.saturatedSubtract(balanceMilli, amountMilli);
    }

    /** The session start after a debit at {@code atMillis}: a session quota consumed outside a session starts one. */
    public static long debitedWindow(Limit limit, long windowStartMillis, long amountMilli, boolean countOnly,
            long atMillis) {
        return !countOnly && amountMilli > 0 && windowStartMillis == NO_WINDOW && limit.resetAfter().isPresent()
                ? atMillis : windowStartMillis;
    }

    /** The consumption after a debit of {@code amountMilli}, count-only or not. */
    public static long debitedConsumed(long consumedMilli, long amountMilli) {
        return BucketMath.saturatedAdd(consumedMilli, amountMilli);
    }
}
