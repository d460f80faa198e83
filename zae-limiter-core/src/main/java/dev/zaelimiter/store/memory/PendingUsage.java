package dev.zaelimiter.store.memory;

import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.UsageCounts;

/** Counts of in-place decisions set aside until the next {@link InPlaceBuckets#drainUsage}. */
record PendingUsage(BucketKey key, String limitName, long hourStart, UsageCounts counts) {
}
