package dev.zaelimiter;

/** Base type of every exception the limiter raises on purpose. */
public class RateLimiterException extends RuntimeException {

    public RateLimiterException(String message) {
        super(message);
    }

    public RateLimiterException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * An exception without a stack trace when {@code writableStackTrace} is false, for refusals the limiter raises
     * as answers rather than as faults: where it was raised is the caller's own call, and recording it would cost
     * more than the decision.
     */
    protected RateLimiterException(String message, boolean writableStackTrace) {
        super(message, null, true, writableStackTrace);
    }
}
