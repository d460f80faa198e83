package dev.zaelimiter.store.memory;

import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.UsageCounts;

import java.util.Queue;

/**
 * A bucket that also counts the usage of the decisions made in place on it, in the hour of the latest one (see
 * {@link InPlaceBuckets#takeOne}), under the same monitor: counts are moved to the pending usage when the hour,
 * the limit or the kind of amount (consumed or bypassed) changes, when a count would overflow its {@code int},
 * or when the bucket goes, and are handed over by {@link InPlaceBuckets#drainUsage}. The counters are {@code int}s, and the
 * amount is one counter that holds either kind, so that a million counting buckets stay small; what does not fit
 * is set aside as one small object (every 2^31 milli-tokens, admitted or refused calls, or soft overdrafts, and on
 * a switch between bypassed and consumed amounts; an amount of 2^31 milli-tokens or more is counted on its own).
 * Only stores asked to count have these, so that a store without usage history keeps its buckets smaller still.
 */
final class CountingCell extends Cell {
    private static final long HOUR_MILLIS = UsageGranularity.HOUR.millis();

    /** The hour of the counts, in hours since the epoch. */
    int usageHour;
    String usageLimit;
    int admitted;
    int refused;
    int overdrawn;
    /** Milli-tokens consumed, or bypassed when {@link #amountBypassed}. */
    int amountMilli;
    boolean amountBypassed;

    CountingCell() {
    }

    /** A counting copy of {@code cell}, which is retired in its favour. */
    CountingCell(Cell cell) {
        copyFrom(cell);
    }

    /**
     * Counts one decision made at {@code now}: admitted or refused, with the amount it consumed (or only
     * counted, when {@code countOnly}), and whether it left a soft limit in debt; what {@link
     * UsageCounts#ofDecision} counts, kept in this cell's compact form.
     */
    void count(BucketKey key, long now, String limitName, boolean admittedCall, long amountMilli,
            boolean countOnly, boolean inDebt, Queue<PendingUsage> pending) {
        long hour = Math.floorDiv(now, HOUR_MILLIS);
        boolean amounted = admittedCall && amountMilli != 0;
        if (hour != (int) hour || amounted && amountMilli > Integer.MAX_VALUE) {
            pending.add(new PendingUsage(key, limitName, hour * HOUR_MILLIS,        // beyond an int: alone
                    UsageCounts.ofDecision(admittedCall, amountMilli, countOnly, inDebt)));
            return;
        }
        boolean amountClash = amounted && (countOnly != amountBypassed && this.amountMilli != 0
                || amountMilli > Integer.MAX_VALUE - this.amountMilli);
        if ((int) hour != usageHour || !limitName.equals(usageLimit) || !fits(admittedCall, amountClash, inDebt)) {
            moveTo(pending, key);
            usageHour = (int) hour;
            usageLimit = limitName;
        }
        if (!admittedCall) {
            refused++;
            return;
        }
        admitted++;
        if (amounted) {
            this.amountMilli += (int) amountMilli;
            amountBypassed = countOnly;
        }
        if (inDebt) {
            overdrawn++;
        }
    }

    /** Whether one more decision fits the counters as they are ({@code amountClash}: its amount does not). */
    private boolean fits(boolean admittedCall, boolean amountClash, boolean inDebt) {
        if (!admittedCall) {
            return refused != Integer.MAX_VALUE;
        }
        return !amountClash && admitted != Integer.MAX_VALUE && (!inDebt || overdrawn != Integer.MAX_VALUE);
    }

    /** The counts not handed over yet, zeroed; {@code null} when there are none. */
    UsageCounts take() {
        if (admitted == 0 && refused == 0 && amountMilli == 0) {
            return null;
        }
        UsageCounts counts = new UsageCounts(amountBypassed ? 0 : amountMilli, admitted, refused, overdrawn,
                amountBypassed ? amountMilli : 0);
        admitted = 0;
        refused = 0;
        overdrawn = 0;
        amountMilli = 0;
        return counts;
    }

    /** The start of the hour the counts are of, in epoch milliseconds. */
    long hourStart() {
        return usageHour * HOUR_MILLIS;
    }

    void moveTo(Queue<PendingUsage> pending, BucketKey key) {
        UsageCounts counts = take();
        if (counts != null) {
            pending.add(new PendingUsage(key, usageLimit, hourStart(), counts));
        }
    }
}
