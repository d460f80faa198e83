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

    /** What one refused call counts. */
    private static final UsageCounts ONE_REFUSED = new UsageCounts(0, 0, 1, 0, 0);

    /**
     * What one decision on one limit counts, the rule the limiter and the in-memory store both follow: an admitted
     * call counts once as admitted, its amount as consumed (as bypassed when the call was only counted), and once as
     * overdrawn when it left a soft limit in debt; a refused call counts once as refused, and nothing else.
     */
    public static UsageCounts ofDecision(boolean admitted, long amountMilli, boolean countOnly, boolean inDebt) {
        if (!admitted) {
            return ONE_REFUSED;
        }
        return new UsageCounts(countOnly ? 0 : amountMilli, 1, 0, inDebt ? 1 : 0, countOnly ? amountMilli : 0);
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
