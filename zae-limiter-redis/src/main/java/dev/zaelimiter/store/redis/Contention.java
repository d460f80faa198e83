package dev.zaelimiter.store.redis;

import dev.zaelimiter.internal.algorithm.ContestedRefusal;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketState;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The buckets this process lately lost a race for (Redis refused or overtook a call its estimate admitted), and
 * the estimate of such a bucket: other processes ask for the same refill, so only a {@code 1 / (1 + RIVALS)} share
 * of what refilled since this process learned the bucket counts as there for it. Processes sharing a saturated
 * bucket then ask for each refill one at a time rather than all at once; the share only refuses, within
 * {@link KnownBucket#LOCAL_REFUSAL_MILLIS} of learning the bucket, what the full estimate would have sent, and such a
 * refusal reports the full estimate with a retry-after no later than the end of that second.
 */
final class Contention {

    /** How long a bucket counts as contended after this process lost a race for it. */
    static final long CONTENDED_MILLIS = 5_000;
    /** How many other processes a contended bucket's estimate expects to ask for the same refill. */
    static final int RIVALS = 4;
    private static final int MAX_CONTENDED = 100_000;

    private final ConcurrentHashMap<BucketKey, Long> contendedUntil = new ConcurrentHashMap<>();

    /** Marks the buckets of {@code debits} contended from {@code now}. */
    void lost(List<BucketDebit> debits, long now) {
        if (contendedUntil.size() >= MAX_CONTENDED) {
            contendedUntil.clear();
        }
        for (BucketDebit debit : debits) {
            contendedUntil.put(debit.key(), now + CONTENDED_MILLIS);
        }
    }

    /** Whether one of the buckets of {@code debits} is contended at {@code now}. */
    boolean any(List<BucketDebit> debits, long now) {
        for (BucketDebit debit : debits) {
            Long until = contendedUntil.get(debit.key());
            if (until != null && now < until) {
                return true;
            }
        }
        return false;
    }

    /**
     * The buckets of {@code debits} as this process counts them at {@code now} while they are contended: the share
     * decides whether to refuse, and a bucket refused on the share alone reports the full estimate, short only so
     * much that the call passes by the time this process asks Redis again ({@link ContestedRefusal}).
     */
    static BucketState[] contested(List<BucketDebit> debits, KnownBucket[] known, long now) {
        BucketState[] contested = new BucketState[known.length];
        for (int i = 0; i < known.length; i++) {
            BucketDebit debit = debits.get(i);
            long learnedAt = known[i].learnedAt();
            long share = !known[i].recent(now) ? now : learnedAt + (now - learnedAt) / (1 + RIVALS);
            BucketState atShare = known[i].refilled(debit, share);
            BucketState shared = new BucketState(Math.max(now, atShare.lastRefillMillis()), atShare.limits());
            contested[i] = ContestedRefusal.state(debit.limits(), debit.amountsMilli(),
                    known[i].refilled(debit, now), shared, learnedAt + KnownBucket.LOCAL_REFUSAL_MILLIS);
        }
        return contested;
    }
}
