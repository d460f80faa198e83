package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** The periods usage history is kept in: UTC hours and UTC days. */
public enum UsageGranularity {
    HOUR(3_600_000L),
    DAY(86_400_000L);

    private final long millis;

    UsageGranularity(long millis) {
        this.millis = millis;
    }

    /** The length of one period in milliseconds. */
    public long millis() {
        return millis;
    }

    /** The start of the period that holds {@code epochMillis}. */
    public long periodStart(long epochMillis) {
        return Math.floorDiv(epochMillis, millis) * millis;
    }

    /** The start of the period that holds {@code instant}. */
    public Instant periodStart(Instant instant) {
        return Arguments.required("instant", instant).truncatedTo(this == HOUR ? ChronoUnit.HOURS : ChronoUnit.DAYS);
    }
}
