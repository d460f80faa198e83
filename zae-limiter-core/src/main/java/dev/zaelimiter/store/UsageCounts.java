package dev.zaelimiter.store;

/**
 * Counters of one limit over one period, as a store keeps them.
 *
 * @param consumedMilli net milli-tokens consumed
 * @param admitted      calls admitted
 * @param refused       calls refused
 * @param overdrawn     calls admitted that left the (soft) limit in debt
 * @param bypassedMilli milli-tokens of bypassed calls
 */
public record UsageCounts(long consumedMilli, long admitted, long refused, long overdrawn, long bypassedMilli) {

    public static final UsageCounts ZERO = new UsageCounts(0, 0, 0, 0, 0);

    public UsageCounts plus(UsageCounts other) {
        return new UsageCounts(consumedMilli + other.consumedMilli, admitted + other.admitted,
                refused + other.refused, overdrawn + other.overdrawn, bypassedMilli + other.bypassedMilli);
    }

    public boolean isZero() {
        return consumedMilli == 0 && admitted == 0 && refused == 0 && overdrawn == 0 && bypassedMilli == 0;
    }
}
