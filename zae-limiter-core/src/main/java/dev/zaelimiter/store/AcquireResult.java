package dev.zaelimiter.store;

import java.util.List;

/**
 * The outcome of {@link LimiterStore#tryAcquire}.
 *
 * @param admitted whether every debit was applied; when false, none was
 * @param buckets  one snapshot per debit, in the same order: after the debit when admitted, before it otherwise
 */
public record AcquireResult(boolean admitted, List<BucketSnapshot> buckets) {

    public AcquireResult {
        buckets = List.copyOf(buckets);
    }
}
