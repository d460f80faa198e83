package dev.zaelimiter.store;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;

import java.util.List;
import java.util.Map;

/**
 * What one decision does to one bucket.
 *
 * @param key            the bucket
 * @param limits         the limits in force for it, as resolved for this call; the bucket is brought in line with
 *                       them (new limits start full, removed ones disappear)
 * @param amountsMilli   milli-tokens per limit name; names not in {@code limits} are ignored
 * @param countOnly      count consumption without touching balances (a bypassed entity); never checked
 * @param defaultDerived whether {@code limits} came from resource or system defaults rather than the entity's own
 *                       configuration (a store may let such buckets expire when idle)
 * @param leaseId        the lease that takes (or gives back) concurrency slots, or {@code null} when the debit
 *                       touches no concurrency limit
 * @param kept           the limits the bucket is kept under between calls; the same as {@code limits} except for a
 *                       call with a per-call override, whose limits decide that call's admission (and its statuses)
 *                       while the shared bucket stays under the stored limits of the same names
 */
public record BucketDebit(BucketKey key, List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly,
        boolean defaultDerived, String leaseId, List<Limit> kept) {

    public BucketDebit {
        List<Limit> given = limits;
        limits = List.copyOf(limits);
        kept = kept == null || kept == given ? limits : List.copyOf(kept);
        amountsMilli = Map.copyOf(amountsMilli);
    }

    /** A debit of a bucket kept under the limits that decide the call (no per-call override). */
    public BucketDebit(BucketKey key, List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly,
            boolean defaultDerived, String leaseId) {
        this(key, limits, amountsMilli, countOnly, defaultDerived, leaseId, null);
    }

    /** A debit that takes no concurrency slot. */
    public BucketDebit(BucketKey key, List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly,
            boolean defaultDerived) {
        this(key, limits, amountsMilli, countOnly, defaultDerived, null);
    }

    /** The same bucket and limits with other amounts, for adjustments and rollbacks. */
    public BucketDebit withAmounts(Map<String, Long> amounts) {
        return new BucketDebit(key, limits, amounts, countOnly, defaultDerived, leaseId, kept);
    }

    /**
     * Whether a per-call override decides this call in place of stored limits of the same names, so that the store
     * must check the call against {@link #limits()} and write the bucket under {@link #kept()}.
     */
    public boolean overridden() {
        return kept != limits && !kept.equals(limits);
    }

    /**
     * This debit as the shared bucket sees it, with {@link #kept()} deciding everything: what adjustments, rollbacks
     * and slot renewals apply, since they are never refused and must not cap the bucket at an override's capacity.
     */
    public BucketDebit shared() {
        return overridden() ? new BucketDebit(key, kept, amountsMilli, countOnly, defaultDerived, leaseId, kept)
                : this;
    }
    /**
     * Whether a store may book this debit ahead of its tokens ({@link LimiterStore#tryAcquire(List, long, long)}):
     * it counts, takes no concurrency slot and has no per-call override.
     */
    public boolean bookable() {
        return !countOnly && !takesSlots() && !overridden();
    }

    /**
     * How far ahead a store books this debit when asked to book within {@code horizonMillis} at {@code now}: not at
     * all unless it is {@linkplain #bookable bookable}, and never further than its fastest hard dripping limit takes
     * to fill from empty, so that no limit owes more than about one capacity. Every store books by this rule, and
     * the limiter tells its waiters by it when they can book.
     */
    public long bookingHorizon(long now, long horizonMillis) {
        if (horizonMillis <= 0 || !bookable()) {
            return 0;
        }
        long horizon = horizonMillis;
        for (Limit limit : limits) {
            if (limit.isSoft() || amountsMilli.getOrDefault(limit.name(), 0L) <= 0) {
                continue;
            }
            Limits.Parameters p = Limits.parametersAt(limit, now);
            if (p.drips()) {
                horizon = Math.min(horizon, BucketMath.multiplyDivideUp(p.capacityMilli(), p.refillPeriodMillis(),
                        p.refillAmountMilli()));
            }
        }
        return horizon;
    }

    /** Whether any limit of the debit is a concurrency limit that it takes a slot of. */
    public boolean takesSlots() {
        for (Limit limit : limits) {
            if (limit.isConcurrency() && amountsMilli.getOrDefault(limit.name(), 0L) > 0 && !countOnly) {
                return true;
            }
        }
        return false;
    }
}
