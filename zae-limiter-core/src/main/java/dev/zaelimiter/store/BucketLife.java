package dev.zaelimiter.store;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;

import java.util.List;

/**
 * When a bucket's life ends, the one rule both stores follow: a bucket written at {@code W} under some limits has
 * an expiry horizon {@link #endsAfter(List, long)}, and a bucket found full (every limit at the capacity in force)
 * at or after its horizon is a new bucket: its consumption counters restart from zero. A bucket not full (in debt,
 * or still refilling) lives on, whatever its horizon. The DynamoDB store writes the horizon into every bucket item
 * (and a {@code ttl} no earlier than it); the in-memory store computes it from the bucket's last write and the
 * limits it was written under, forgets an ended bucket when next touched, and evicts only ended buckets, so that
 * eviction is invisible.
 */
public final class BucketLife {

    private static final long HOUR = 3_600_000L;
    /** The shortest idle horizon: an hour. */
    public static final long MIN_HORIZON_MILLIS = HOUR;
    private static final long CAP = 10L * 366 * 24 * HOUR;

    private BucketLife() {
    }

    /**
     * The instant (epoch milliseconds) from which a bucket written at {@code writtenAt} under {@code limits} ends
     * once it is full: {@code writtenAt} plus {@link #idleHorizon}.
     */
    public static long endsAfter(List<Limit> limits, long writtenAt) {
        return BucketMath.saturatedAdd(writtenAt, idleHorizon(limits, writtenAt));
    }

    /**
     * How long after a write at {@code now} a bucket left alone is surely full again (when it owes nothing): at
     * least an hour; for a dripping limit twice the time it takes to fill from empty, plus an hour; for a session
     * quota two sessions plus an hour; for a quota or fixed window a day past its next reset; at most ten years.
     */
    public static long idleHorizon(List<Limit> limits, long now) {
        long horizon = MIN_HORIZON_MILLIS;
        for (Limit limit : limits) {
            if (limit.refillAmount() > 0) {
                long fill = fillMillis(limit);
                horizon = Math.max(horizon, Math.min(Long.MAX_VALUE / 4, 2 * fill + HOUR));
            } else if (limit.resetAfter().isPresent()) {
                horizon = Math.max(horizon, 2 * limit.resetAfter().get().toMillis() + HOUR);
            } else {
                long reset = Limits.nextResetAfter(limit, now);
                horizon = Math.max(horizon, reset == Limits.NEVER ? Long.MAX_VALUE / 4 : reset - now + 24 * HOUR);
            }
        }
        return Math.min(horizon, CAP);
    }

    /** How long {@code limit} takes to fill from empty, exactly, at most {@code Long.MAX_VALUE / 4}. */
    private static long fillMillis(Limit limit) {
        return Math.min(Long.MAX_VALUE / 4, BucketMath.multiplyDivide(Limits.capacityMilli(limit),
                Limits.refillPeriodMillis(limit), Limits.refillAmountMilli(limit)));
    }

    /**
     * Whether a bucket whose horizon is {@code endsAfter} and whose state (refilled to {@code now} under
     * {@code limits}) is {@code state} has ended by {@code now}: the horizon passed and the bucket is full.
     */
    public static boolean ended(long endsAfter, BucketState state, List<Limit> limits, long now) {
        return endsAfter <= now && state.isFull(limits);
    }
}
