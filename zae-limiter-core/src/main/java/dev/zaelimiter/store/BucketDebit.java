package dev.zaelimiter.store;

import dev.zaelimiter.Limit;

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
 */
public record BucketDebit(BucketKey key, List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly,
        boolean defaultDerived, String leaseId) {

    public BucketDebit {
        limits = List.copyOf(limits);
        amountsMilli = Map.copyOf(amountsMilli);
    }

    /** A debit that takes no concurrency slot. */
    public BucketDebit(BucketKey key, List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly,
            boolean defaultDerived) {
        this(key, limits, amountsMilli, countOnly, defaultDerived, null);
    }

    /** The same bucket and limits with other amounts, for adjustments and rollbacks. */
    public BucketDebit withAmounts(Map<String, Long> amounts) {
        return new BucketDebit(key, limits, amounts, countOnly, defaultDerived, leaseId);
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
