package dev.zaelimiter;

/**
 * The store holds a value the limiter cannot read: a number that is not a number, an attribute of the wrong type,
 * a configuration item written by hand or by a foreign tool. It is a {@link StoreUnavailableException}, so it
 * follows the {@link Unavailable} policy like any other store failure: {@link Unavailable#BLOCK} raises it,
 * {@link Unavailable#ALLOW} admits the call unrecorded (and logs it). Nothing is written over the damaged item;
 * a damaged bucket is repaired by {@link RateLimiterAdmin#resetBucket}, a damaged configuration level by setting
 * it again.
 */
public class CorruptStateException extends StoreUnavailableException {

    public CorruptStateException(String message) {
        super(message, null);
    }

    public CorruptStateException(String message, Throwable cause) {
        super(message, cause);
    }
}
