package dev.zaelimiter;

/** Base type of every exception the limiter raises on purpose. */
public class RateLimiterException extends RuntimeException {

    public RateLimiterException(String message) {
        super(message);
    }

    public RateLimiterException(String message, Throwable cause) {
        super(message, cause);
    }
}
