package dev.zaelimiter;

import java.time.Duration;
import java.util.List;

/**
 * What an admitted {@link RateLimiter#acquire acquire} returns. The tokens are already taken when the lease exists;
 * the lease lets the caller correct the amount later ({@link #adjust}) or give everything back ({@link #rollback}),
 * and holds the slots of concurrency limits until it is closed.
 * Each effect is applied exactly once; after {@link #close()} or {@link #rollback()}, {@link #adjust} and
 * {@link #rollback} raise {@link LeaseClosedException}. {@link #close()} itself may be called again.
 */
public non-sealed interface Lease extends Attempt, AutoCloseable {

    /** A lease is the outcome of an admitted call. */
    @Override
    default boolean admitted() {
        return true;
    }

    /** This lease. */
    @Override
    default Lease lease() {
        return this;
    }

    /** None: the call was admitted. */
    @Override
    default RateLimitExceededException refusal() {
        return null;
    }

    /** Zero: the call was admitted. */
    @Override
    default Duration retryAfter() {
        return Duration.ZERO;
    }

    /**
     * Consumes {@code amount} more tokens of {@code limitName} (or gives them back, when negative) on the first
     * target's buckets (its entity, and its parent when the call cascaded) that have this limit. Never rejected; may
     * put a balance into debt (balances saturate at {@link Long#MIN_VALUE} milli-tokens instead of wrapping).
     *
     * @throws ValidationException when {@code amount} lies outside {@code -Limit.MAX_TOKENS..Limit.MAX_TOKENS};
     *                             nothing is written
     */
    void adjust(String limitName, long amount);

    /**
     * Returns what this lease still holds of every target, adjustments included, and closes it. Never takes tokens:
     * a limit that adjustments gave back more of than the lease took gets nothing back.
     */
    void rollback();

    /** Ends the lease, keeping what it consumed; gives back the concurrency slots it holds. */
    @Override
    void close();

    /**
     * Renews the concurrency slots this lease holds for another lease timeout, for work that runs long. Nothing to
     * do for a lease without such slots.
     *
     * @return whether the lease still held every slot; false when one had already expired and gone to another call
     * @throws LeaseClosedException when the lease is closed
     */
    boolean extend();

    /** The soft limits of the entity that were in debt right after admission. */
    List<String> overdrawn();

    /** Whether the entity was admitted in {@link DisabledMode#BYPASS}, with no balance debited. */
    boolean bypassed();

    /**
     * Whether the store was unavailable and the call was admitted under {@link Unavailable#ALLOW}: nothing was
     * recorded, and {@link #adjust} and {@link #rollback} do nothing.
     */
    boolean degraded();

    /**
     * The unavailability policy of this call: the request's own ({@link AcquireRequest#onUnavailable}) or the
     * limiter's. {@link Unavailable#ALLOW} for a {@linkplain #degraded() degraded} lease; the lease's own writes
     * follow it when the store fails.
     */
    Unavailable onUnavailable();

    /** The status of every limit at admission, the entity's first, then its parent's when the call cascaded. */
    @Override
    List<LimitStatus> statuses();
}
