package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;

import java.time.Duration;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The checks {@link Limit}'s factories and its users share; each raises a {@link ValidationException}. */
final class LimitChecks {

    private LimitChecks() {
    }

    /**
     * Checks a refill period, session length or lease timeout: at least one millisecond and at most
     * {@link Limit#MAX_PERIOD}, so that every instant computed from it stays far inside the epoch-millisecond range.
     */
    static void period(String field, Duration period, String what) {
        if (period.isNegative() || period.compareTo(Limit.MAX_PERIOD) > 0 || period.toMillis() < 1) {
            throw new ValidationException(field, period, what + " must be at least one millisecond and at most "
                    + Limit.MAX_PERIOD.toDays() + " days");
        }
    }

    /** Checks an amount of tokens of limit {@code name}: above zero (or zero when allowed), at most the maximum. */
    static long tokens(String name, String field, long value, boolean zeroAllowed) {
        if (value < 0 || (value == 0 && !zeroAllowed)) {
            throw new ValidationException("limit " + name + " " + field, value, "must be greater than zero");
        }
        if (value > Limit.MAX_TOKENS) {
            throw new ValidationException("limit " + name + " " + field, value,
                    "must be at most " + Limit.MAX_TOKENS);
        }
        return value;
    }

    /** Checks that every schedule entry and the reset of limit {@code name} use one time zone. */
    static void oneZone(String name, ZoneId resetZone, List<ScheduleEntry> schedule) {
        ZoneId zone = resetZone;
        for (ScheduleEntry entry : schedule) {
            if (zone == null) {
                zone = entry.zone();
            } else if (!zone.equals(entry.zone())) {
                throw new ValidationException("limit " + name + " schedule", entry.zone().getId(),
                        "every schedule entry and reset of one limit uses the same time zone (" + zone.getId()
                                + " here)");
            }
        }
    }

    /** As {@link Limit#validateLevel}. */
    static List<Limit> level(String field, List<Limit> limits) {
        Arguments.required("field", field);
        if (limits == null || limits.isEmpty()) {
            throw new ValidationException(field, limits, "at least one limit is required");
        }
        if (limits.size() > Limit.MAX_LIMITS_PER_LEVEL) {
            throw new ValidationException(field, limits.size() + " limits", "a configuration level holds at most "
                    + Limit.MAX_LIMITS_PER_LEVEL + " limits");
        }
        Set<String> names = new HashSet<>();
        ZoneId zone = null;
        for (Limit limit : limits) {
            if (limit == null) {
                throw new ValidationException(field, limits, "a limit list cannot contain null");
            }
            if (!names.add(limit.name())) {
                throw new ValidationException(field, limit.name(), "each limit name may appear only once");
            }
            ZoneId own = limit.zone().orElse(null);
            if (zone == null) {
                zone = own;
            } else if (own != null && !own.equals(zone)) {
                throw new ValidationException(field, limit.name(), "the scheduled limits of one configuration level"
                        + " share one time zone, but '" + limit.name() + "' uses " + own + " and another uses " + zone
                        + "; put limits that follow another zone on a separate resource");
            }
        }
        return List.copyOf(limits);
    }
}
