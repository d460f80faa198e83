package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import dev.zaelimiter.internal.schedule.CronPattern;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A window in which a limit runs with other parameters. The cron pattern describes the window: the entry is active
 * for every minute that matches it, in its zone (UTC unless given). An entry either scales the limit's base values
 * (capacity and refill together) or sets absolute ones; the first active entry of a limit wins.
 *
 * <pre>{@code
 * ScheduleEntry.scaled("* 9-17 * * MON-FRI", ZoneId.of("America/New_York"), 0.5)   // half, in business hours
 * ScheduleEntry.absolute("* 0-6 * * *", ZoneId.of("America/New_York"), 2000)       // 2000 overnight
 * }</pre>
 */
public final class ScheduleEntry {

    /**
     * The largest scale: it lifts any capacity to {@link Limit#MAX_TOKENS}, as every larger one would. Scales are
     * bounded so that every store can keep them (DynamoDB numbers lie within about 1e-130 and 1e125).
     */
    static final double MAX_SCALE = 1e21;

    /** The smallest scale: it lowers any capacity to its floor (a thousandth of a token), as any smaller one would. */
    static final double MIN_SCALE = 1e-21;

    private final CronPattern cron;
    private final ZoneId zone;
    private final double scale;
    private final long capacity;
    private final long refillAmount;
    private final Duration refillPeriod;

    private ScheduleEntry(CronPattern cron, ZoneId zone, double scale, long capacity, long refillAmount,
            Duration refillPeriod) {
        this.cron = cron;
        this.zone = zone;
        this.scale = scale;
        this.capacity = capacity;
        this.refillAmount = refillAmount;
        this.refillPeriod = refillPeriod;
    }

    /** An entry that multiplies the base capacity and refill amount by {@code scale} (greater than zero). */
    public static ScheduleEntry scaled(String cron, ZoneId zone, double scale) {
        return of(cron, Arguments.required("zone", zone), scale, null, null, null);
    }

    /** {@link #scaled(String, ZoneId, double)} in UTC. */
    public static ScheduleEntry scaled(String cron, double scale) {
        return scaled(cron, ZoneOffset.UTC, scale);
    }

    /** An entry with its own capacity; refill amount and period stay the base ones. */
    public static ScheduleEntry absolute(String cron, ZoneId zone, long capacity) {
        return of(cron, Arguments.required("zone", zone), null, capacity, null, null);
    }

    /** An entry with its own capacity and refill. */
    public static ScheduleEntry absolute(String cron, ZoneId zone, long capacity, long refillAmount,
            Duration refillPeriod) {
        return of(cron, Arguments.required("zone", zone), null, capacity, refillAmount,
                Arguments.required("refillPeriod", refillPeriod));
    }

    /**
     * The general form, for declarative configuration: {@code scale}, or {@code capacity} with an optional refill,
     * never both. A {@code null} zone means UTC.
     */
    public static ScheduleEntry of(String cron, ZoneId zone, Double scale, Long capacity, Long refillAmount,
            Duration refillPeriod) {
        CronPattern pattern = CronPattern.parse("schedule cron", cron);
        ZoneId z = zone == null ? ZoneOffset.UTC : zone.normalized();
        String where = "schedule entry '" + pattern.expression() + "'";
        if (scale != null) {
            if (capacity != null || refillAmount != null || refillPeriod != null) {
                throw new ValidationException(where, scale, "an entry either scales the limit or sets absolute"
                        + " values, not both; drop the scale or the capacity and refill");
            }
            if (!(scale > 0) || scale.isInfinite()) {
                throw new ValidationException(where + " scale", scale, "a scale is a finite number greater than"
                        + " zero; to close a resource during a window, use a small absolute capacity instead");
            }
            if (scale < MIN_SCALE || scale > MAX_SCALE) {
                throw new ValidationException(where + " scale", scale, "a scale lies between " + MIN_SCALE + " and "
                        + MAX_SCALE + " (beyond, every capacity scales to the same bound, and DynamoDB cannot store"
                        + " the number)");
            }
            return new ScheduleEntry(pattern, z, scale, 0, 0, null);
        }
        if (capacity == null) {
            throw new ValidationException(where, cron, "an entry needs a scale or an absolute capacity");
        }
        positive(where + " capacity", capacity);
        if (refillAmount != null) {
            positive(where + " refillAmount", refillAmount);
        }
        if (refillPeriod != null) {
            LimitChecks.period(where + " refillPeriod", refillPeriod, "the refill period");
        }
        if ((refillAmount == null) != (refillPeriod == null)) {
            throw new ValidationException(where, cron, "give both a refill amount and a refill period, or neither");
        }
        return new ScheduleEntry(pattern, z, Double.NaN, capacity, refillAmount == null ? 0 : refillAmount,
                refillPeriod);
    }

    /**
     * Parses an IANA zone id ({@code null} means UTC), or raises a {@link ValidationException} naming {@code field}.
     * Zones that are a fixed offset, such as {@code UTC} and {@code Etc/UTC}, come back as that offset, so that
     * every spelling of one zone compares equal.
     */
    public static ZoneId zone(String field, String zoneId) {
        Arguments.required("field", field);
        try {
            return zoneId == null ? ZoneOffset.UTC : ZoneId.of(zoneId).normalized();
        } catch (DateTimeException e) {
            throw new ValidationException(field, zoneId, "not a known time zone; use an IANA id such as"
                    + " 'America/New_York', 'Europe/Berlin' or 'UTC'");
        }
    }

    private static void positive(String field, long value) {
        if (value <= 0 || value > Limit.MAX_TOKENS) {
            throw new ValidationException(field, value, "must be greater than zero and at most " + Limit.MAX_TOKENS);
        }
    }

    /** The window's cron pattern, in canonical form. */
    public String cron() {
        return cron.expression();
    }

    /** The compiled pattern, for the engine. */
    CronPattern pattern() {
        return cron;
    }

    public ZoneId zone() {
        return zone;
    }

    public boolean isScaled() {
        return !Double.isNaN(scale);
    }

    /** The multiplier, or {@code NaN} for an absolute entry. */
    public double scale() {
        return scale;
    }

    /** The absolute capacity in tokens, or 0 for a scaled entry. */
    public long capacity() {
        return capacity;
    }

    /** The absolute refill amount, or 0 when the base one applies. */
    public long refillAmount() {
        return refillAmount;
    }

    /** The absolute refill period, or {@code null} when the base one applies. */
    public Duration refillPeriod() {
        return refillPeriod;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof ScheduleEntry other
                && cron.equals(other.cron) && zone.equals(other.zone)
                && Double.compare(scale, other.scale) == 0 && capacity == other.capacity
                && refillAmount == other.refillAmount && Objects.equals(refillPeriod, other.refillPeriod);
    }

    @Override
    public int hashCode() {
        return Objects.hash(cron, zone, scale, capacity, refillAmount, refillPeriod);
    }

    @Override
    public String toString() {
        String what = isScaled() ? "scale " + scale
                : "capacity " + capacity + (refillPeriod == null ? "" : ", " + refillAmount + " per " + refillPeriod);
        return "\"" + cron.expression() + "\" " + (zone.equals(ZoneOffset.UTC) ? "UTC" : zone) + " -> " + what;
    }
}
