package dev.zaelimiter.autoconfigure.web;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Lets a repeated warning through at most once every 10 seconds, so that an outage or a bad input logs once. */
final class WarningThrottle {

    private static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** When a warning was last let through (nanoTime). */
    private final AtomicLong last = new AtomicLong(System.nanoTime() - PERIOD_NANOS);

    /** Whether to log now; {@code true} at most once a period across threads. */
    boolean shouldLog() {
        long previous = last.get();
        long now = System.nanoTime();
        return now - previous >= PERIOD_NANOS && last.compareAndSet(previous, now);
    }
}
