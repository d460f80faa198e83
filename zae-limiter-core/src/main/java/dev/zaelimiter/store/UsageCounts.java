package dev.zaelimiter.store;

/**
 * Counters of one limit over one period, as a store keeps them.
 *
 * @param consumedMilli net milli-tokens consumed
 * @param admitted      calls admitted
 * @param refused       calls refused
 * @param overdrawn     calls admitted that left the (soft) limit in debt
 * @param bypassedMilli milli-tokens of bypassed calls
 * @param degradedMilli milli-tokens of calls admitted without the store (which was unavailable, under
 *                      {@link dev.zaelimiter.Unavailable#ALLOW}): counted by the limiter, never debited
 */
public record UsageCounts(long consumedMilli, long admitted, long refused, long overdrawn, long bypassedMilli,
        long degradedMilli) {

    public static final UsageCounts ZERO = new UsageCounts(0, 0, 0, 0, 0, 0);

    /** Counts of decisions the store made, so none degraded. */
    public UsageCounts(long consumedMilli, long admitted, long refused, long overdrawn, long bypassedMilli) {
        this(consumedMilli, admitted, refused, overdrawn, bypassedMilli, 0);
    }

    public UsageCounts plus(UsageCounts other) {
        return new UsageCounts(consumedMilli + other.consumedMilli, admitted + other.admitted,
                refused + other.refused, overdrawn + other.overdrawn, bypassedMilli + other.bypassedMilli,
                degradedMilli + other.degradedMilli);
    }

    public boolean isZero() {
        return equals(ZERO);
    }
}
