package dev.zaelimiter;

/** A lease was adjusted or rolled back after it had been closed or rolled back. */
public class LeaseClosedException extends RateLimiterException {

    public LeaseClosedException(String what) {
        super("lease is already closed: cannot " + what);
    }
}
