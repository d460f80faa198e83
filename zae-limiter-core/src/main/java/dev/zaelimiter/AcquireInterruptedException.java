package dev.zaelimiter;

/** A call waiting for capacity was interrupted; nothing was consumed, and the thread's interrupt flag is set. */
public class AcquireInterruptedException extends RateLimiterException {

    public AcquireInterruptedException(InterruptedException cause) {
        super("interrupted while waiting for capacity", cause);
    }
}
