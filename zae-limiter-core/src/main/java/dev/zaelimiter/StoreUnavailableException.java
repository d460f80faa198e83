package dev.zaelimiter;

/**
 * The store could not be reached or did not answer. Only this exception triggers the {@link Unavailable} policy;
 * stores wrap their transport errors in it.
 */
public class StoreUnavailableException extends RateLimiterException {

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
