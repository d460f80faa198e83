package dev.zaelimiter.store;

import dev.zaelimiter.internal.algorithm.LimitRules;

import java.util.Map;

/**
 * The live state of one limit in a bucket.
 *
 * @param balanceMilli      milli-tokens available; negative while the limit is in debt. For a concurrency limit,
 *                          the free slots (in milli-slots), derived from {@code holders}
 * @param consumedMilli     net milli-tokens consumed over the bucket's life (acquires and adjustments, minus
 *                          rollbacks); never reset by refills or resets. For a concurrency limit, slots taken
 * @param windowStartMillis when the current session of a session quota began, or {@link #NO_WINDOW}
 * @param holders           for a concurrency limit, the leases holding a slot and when each slot expires (epoch ms)
 */
public record LimitState(long balanceMilli, long consumedMilli, long windowStartMillis, Map<String, Long> holders) {

    /** Milli-tokens per token: balances and counters are kept in thousandths, so that fractional refills lose nothing. */
    public static final long MILLI = 1000L;

    /** No session window is running. */
    public static final long NO_WINDOW = LimitRules.NO_WINDOW;

    public LimitState {
        holders = Map.copyOf(holders);
    }

    /** The state of a limit with no session window and no slot holders. */
    public LimitState(long balanceMilli, long consumedMilli) {
        this(balanceMilli, consumedMilli, NO_WINDOW, Map.of());
    }

    /** The state of a limit with no slot holders. */
    public LimitState(long balanceMilli, long consumedMilli, long windowStartMillis) {
        this(balanceMilli, consumedMilli, windowStartMillis, Map.of());
    }

    /** Whether a session window is running. */
    public boolean inWindow() {
        return windowStartMillis != NO_WINDOW;
    }
}
