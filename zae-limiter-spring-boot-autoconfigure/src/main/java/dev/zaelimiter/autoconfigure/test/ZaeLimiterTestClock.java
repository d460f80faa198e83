package dev.zaelimiter.autoconfigure.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * A clock that stands still until the test moves it. {@link AutoConfigureZaeLimiterTest} makes one the limiter's
 * clock, so a test sees refills, resets and schedule windows by calling {@link #advance(Duration)} instead of
 * sleeping. It starts at the current time cut to whole minutes, so that waits come out round, and goes back there
 * after each test method.
 */
public final class ZaeLimiterTestClock extends Clock {

    private final Instant start;
    private volatile Instant now;
    private final ZoneId zone;

    /** A clock at the current time, cut to whole minutes, in UTC. */
    public ZaeLimiterTestClock() {
        this(Instant.now().truncatedTo(ChronoUnit.MINUTES));
    }

    /** A clock at {@code start}, in UTC. */
    public ZaeLimiterTestClock(Instant start) {
        this(start, start, ZoneOffset.UTC);
    }

    private ZaeLimiterTestClock(Instant start, Instant now, ZoneId zone) {
        this.start = start;
        this.now = now;
        this.zone = zone;
    }

    /** Moves the clock forward (or back, with a negative duration). */
    public void advance(Duration duration) {
        now = now.plus(duration);
    }

    /** Puts the clock at {@code instant}, such as a time inside a schedule window. */
    public void set(Instant instant) {
        now = instant;
    }

    /** Puts the clock back where it started. */
    public void reset() {
        now = start;
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new ZaeLimiterTestClock(start, now, zone);
    }
}
