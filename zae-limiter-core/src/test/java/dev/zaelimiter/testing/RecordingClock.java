package dev.zaelimiter.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock, remembering per thread the last instant it gave: a caller reads, after a limiter call, the instant
 * the limiter decided at (for counting admissions at the instant a token was handed out).
 */
public final class RecordingClock extends Clock {

    private final ThreadLocal<long[]> last = ThreadLocal.withInitial(() -> new long[1]);

    /** The last instant this clock gave the calling thread (epoch ms), 0 before the first. */
    public long lastOnThisThread() {
        return last.get()[0];
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public long millis() {
        long now = System.currentTimeMillis();
        last.get()[0] = now;
        return now;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }
}
