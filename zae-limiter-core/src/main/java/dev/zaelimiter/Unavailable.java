package dev.zaelimiter;

/** What {@link RateLimiter} does when the store fails with {@link StoreUnavailableException}. */
public enum Unavailable {
    /** Raise the store error to the caller. */
    BLOCK,
    /** Admit the call with a lease that debits nothing (usage history counts it as degraded). */
    ALLOW
}
