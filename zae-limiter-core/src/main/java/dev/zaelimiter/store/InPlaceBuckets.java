package dev.zaelimiter.store;

import dev.zaelimiter.Limit;

import java.util.List;

/**
 * What a store whose buckets live in this process's heap offers besides {@link LimiterStore#tryAcquire}: the most
 * common decision (one bucket, one plain limit, no per-call override) made in place, without the request and result
 * objects the general call passes, and counted for the usage history in the bucket itself. The limiter uses it when
 * {@link LimiterStore#inPlaceBuckets()} answers one; the outcome must be exactly what {@code tryAcquire} of the
 * equivalent {@link BucketDebit} would decide and write.
 */
public interface InPlaceBuckets {

    /**
     * Decides a call on the bucket {@code key} that takes {@code take}'s {@code amountMilli} of the one limit of its
     * {@code limits}: brings the bucket to {@code now} under {@code limits}, admits the call unless the limit is hard
     * and lacks the amount ({@code countOnly}: always, and only consumption is counted), and writes the debit when it
     * admits. Tells {@code outcome} what it saw about {@code call} before returning. With {@code countUsage}, also
     * counts the decision for the usage history, in the UTC hour of {@code now}, as {@link #drainUsage} hands it
     * over: an admitted call (with its amount as consumed, or as bypassed when {@code countOnly}; as overdrawn when a
     * soft limit ends in debt), or a refused one.
     *
     * @param key     the bucket
     * @param take    what the call takes
     * @param now     the decision's instant, epoch milliseconds
     * @param outcome told what the decision saw
     * @param call    the caller's record of the call, handed to {@code outcome} as given
     * @param <C>     the type of that record
     * @return whether the call was admitted
     */
    <C> boolean takeOne(BucketKey key, Take take, long now, Outcome<C> outcome, C call);

    /**
     * What a call decided by {@link #takeOne} takes: the same for every call of a target with the same configuration
     * and amounts, so that the limiter keeps one and a decision allocates nothing to pass it. (A value made per call
     * is free only while the JIT inlines the store's method into the caller, which it stops doing once that method
     * is compiled on its own.)
     *
     * @param limits      one limit, not a concurrency limit; the bucket is kept under it
     * @param amountMilli what the call takes, in milli-tokens
     * @param countOnly   whether the call is only counted, never refused (a bypassed resource)
     * @param countUsage  whether the decision is counted for the usage history
     */
    record Take(List<Limit> limits, long amountMilli, boolean countOnly, boolean countUsage) {
    }

    /** What {@link #sharedConfigVersion} answers when it promises nothing. */
    long UNVERSIONED = Long.MIN_VALUE;

    /**
     * The version of the configuration {@code entityId} resolves to when it configures nothing of its own (no
     * record, no level): a number the store changes after every write of a configuration level or an entity. While
     * it answers the same number, {@link LimiterStore#loadConfig} of such an entity answers the same levels, so a
     * caller may keep what it derived from them instead of loading them for every call, and still see a change at
     * its next call. {@link #UNVERSIONED} when {@code entityId} configures something of its own, and from a store
     * that makes no such promise (the default).
     */
    default long sharedConfigVersion(String entityId) {
        return UNVERSIONED;
    }

    /**
     * Hands {@code sink} every count that {@link #takeOne} made and did not hand over yet, each once, and forgets
     * it: exact under concurrent decisions.
     */
    void drainUsage(UsageSink sink);

    /**
     * Receives what {@link #takeOne} decided, from inside the decision, about the call it names: one receiver serves
     * every call, so that a decision allocates nothing to report itself.
     *
     * @param <C> the type of the caller's record of a call
     */
    interface Outcome<C> {

        /**
         * {@code call} was admitted: the limit's balance right after the debit, in a bucket refilled to {@code at}.
         */
        void admitted(C call, long balanceMilli, long at);

        /**
         * {@code call} was refused: the bucket as it was stored before the call ({@code null}: never written), which
         * refilled to the same instant under the same limits explains the refusal.
         */
        void refused(C call, BucketState stored);
    }

    /** Receives the usage counts of in-place decisions. */
    interface UsageSink {

        /** What decisions on {@code key}'s limit {@code limitName} counted in the UTC hour from {@code hourStart}. */
        void counted(BucketKey key, String limitName, long hourStart, UsageCounts counts);
    }
}
