package dev.zaelimiter.algorithm;

/**
 * The live state of one limit in a bucket.
 *
 * @param balanceMilli      milli-tokens available; negative while the limit is in debt
 * @param consumedMilli     net milli-tokens consumed over the bucket's life (acquires and adjustments, minus
 *                          rollbacks); never reset by refills or resets
 * @param windowStartMillis when the current session of a session quota began, or {@link #NO_WINDOW}
 */
public record LimitState(long balanceMilli, long consumedMilli, long windowStartMillis) {

    /** No session window is running. */
    public static final long NO_WINDOW = Long.MIN_VALUE;

    /** The state of a limit with no session window. */
    public LimitState(long balanceMilli, long consumedMilli) {
        this(balanceMilli, consumedMilli, NO_WINDOW);
    }

    /** Whether a session window is running. */
    public boolean inWindow() {
        return windowStartMillis != NO_WINDOW;
    }
}
