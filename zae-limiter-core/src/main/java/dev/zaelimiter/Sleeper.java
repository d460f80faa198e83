package dev.zaelimiter;

import java.time.Duration;

/**
 * How a {@link RateLimiter} waits for capacity when a request allows it ({@link AcquireRequest#maxWait}). The
 * default parks the thread, and a lease closing in the same process wakes it early. Tests pass one that advances
 * their clock instead of waiting.
 */
@FunctionalInterface
public interface Sleeper {

    /** Waits for {@code duration}, or less; interruptible. */
    void sleep(Duration duration) throws InterruptedException;
}
