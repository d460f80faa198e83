package dev.zaelimiter.testing;

import dev.zaelimiter.Sleeper;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Sleeper} for tests with several waiting threads: a sleep returns once the test has moved its clock to
 * the end of the sleep (or further), so that every thread wakes exactly when the test's time says it should. Each
 * sleep is recorded, so that a test can wait until a thread sleeps.
 */
public final class ClockSleeper implements Sleeper {

    private final Clock clock;
    private final BlockingQueue<Duration> sleeps = new LinkedBlockingQueue<>();

    public ClockSleeper(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        long until = clock.millis() + duration.toMillis();
        sleeps.add(duration);
        while (clock.millis() < until) {
            TimeUnit.MILLISECONDS.sleep(1);
        }
    }

    /** The next sleep some thread started, waiting for it up to 30 s; fails when none comes. */
    public Duration nextSleep() throws InterruptedException {
        Duration next = sleeps.poll(30, TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("no thread started to sleep within 30 s");
        }
        return next;
    }
}
