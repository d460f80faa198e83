package dev.zaelimiter.store;

import dev.zaelimiter.Limit;

import java.util.List;

/**
 * What a store whose buckets live in this process's heap offers besides {@link LimiterStore#tryAcquire}: the most
 * common decision (one bucket, one plain limit, no per-call override) made in place, without the request and result
 * objects the general call passes. The limiter uses it when {@link LimiterStore#localBuckets()} answers one; the
 * outcome must be exactly what {@code tryAcquire} of the equivalent {@link BucketDebit} would decide and write.
 */
public interface LocalBuckets {

    /**
     * Decides a call that takes {@code amountMilli} of the one limit of {@code limits} from the bucket {@code key}:
     * brings the bucket to {@code now} under {@code limits}, admits the call unless the limit is hard and lacks the
     * amount ({@code countOnly}: always, and only consumption is counted), and writes the debit when it admits.
     * Tells {@code outcome} what it saw before returning.
     *
     * @param limits one limit, not a concurrency limit; the bucket is kept under it
     * @return whether the call was admitted
     */
    boolean takeOne(BucketKey key, List<Limit> limits, long amountMilli, boolean countOnly, long now,
            Outcome outcome);

    /** Receives what {@link #takeOne} decided, from inside the decision. */
    interface Outcome {

        /** The call was admitted: the limit's balance right after the debit, in a bucket refilled to {@code at}. */
        void admitted(long balanceMilli, long at);

        /**
         * The call was refused: the bucket as it was stored before the call ({@code null}: never written), which
         * refilled to the same instant under the same limits explains the refusal.
         */
        void refused(BucketState stored);
    }
}
