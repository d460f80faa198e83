package dev.zaelimiter.store;

import java.util.List;

/**
 * The outcome of {@link LimiterStore#tryAcquire}.
 *
 * @param admitted   whether every debit was applied; when false, none was
 * @param buckets    one snapshot per debit, in the same order: after the debit when admitted, before it otherwise
 * @param waitMillis for a booking ({@link LimiterStore#tryAcquire(List, long, long)}), how long after the call's
 *                   instant its slot comes: the caller holds the debit until then; zero otherwise
 */
public record AcquireResult(boolean admitted, List<BucketSnapshot> buckets, long waitMillis) {

    public AcquireResult {
        buckets = List.copyOf(buckets);
        if (waitMillis < 0 || waitMillis > 0 && !admitted) {
            throw new IllegalArgumentException("only an admitted call waits, and not a negative time: " + waitMillis);
        }
    }

    /** An outcome that waits for nothing. */
    public AcquireResult(boolean admitted, List<BucketSnapshot> buckets) {
        this(admitted, buckets, 0);
    }
}
