package dev.zaelimiter.store.redis;

import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this process last saw of each bucket ({@link KnownBucket}), from which it decides before asking Redis; at
 * most {@value #MAX_KNOWN} buckets, all forgotten at once when full.
 */
final class Seen {

    private static final int MAX_KNOWN = 100_000;

    private final ConcurrentHashMap<BucketKey, KnownBucket> buckets = new ConcurrentHashMap<>();

    /** The buckets of {@code debits} as this process last saw them ({@link KnownBucket#ABSENT}: never). */
    KnownBucket[] known(List<BucketDebit> debits) {
        KnownBucket[] known = new KnownBucket[debits.size()];
        for (int i = 0; i < known.length; i++) {
            known[i] = known(debits.get(i).key());
        }
        return known;
    }

    KnownBucket known(BucketKey key) {
        return buckets.getOrDefault(key, KnownBucket.ABSENT);
    }

    void remember(BucketKey key, KnownBucket state) {
        if (buckets.size() >= MAX_KNOWN) {
            buckets.clear();
        }
        buckets.put(key, state);
    }

    void forget(BucketKey key) {
        buckets.remove(key);
    }

    /** The buckets of {@code entityId} this process saw. */
    List<BucketKey> keysOf(String entityId) {
        return buckets.keySet().stream().filter(key -> key.entityId().equals(entityId)).toList();
    }

    /** Marks every bucket as learned too long ago for a refusal without a round trip. */
    void expireLocalRefusals() {
        buckets.replaceAll((key, bucket) -> bucket.learned(Long.MIN_VALUE));
    }
}
