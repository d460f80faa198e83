package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.schedule.CronPattern;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

/**
 * The evaluation of one {@link Limit} at an instant: the capacity and refill in force, the next schedule change and
 * the next reset, each with a cache, since the engine asks them on every call. Reached through {@link Limits}.
 */
final class LimitTimes {

    /** How {@link Limits} reaches the evaluation of a limit. */
    static final Limits.Access ACCESS = new Limits.Access() {
        @Override
        public Limits.Parameters parametersAt(Limit limit, long epochMillis) {
            return limit.times().parametersAt(epochMillis);
        }

        @Override
        public long capacityMilli(Limit limit) {
            return limit.times().capacityMilli();
        }

        @Override
        public long refillAmountMilli(Limit limit) {
            return limit.times().refillAmountMilli();
        }

        @Override
        public long refillPeriodMillis(Limit limit) {
            return limit.times().refillPeriodMillis();
        }

        @Override
        public long maxCapacityMilli(Limit limit) {
            return limit.times().maxCapacityMilli();
        }

        @Override
        public long nextChangeAfter(Limit limit, long epochMillis) {
            return limit.times().nextChangeAfter(epochMillis);
        }

        @Override
        public long nextResetAfter(Limit limit, long epochMillis) {
            return limit.times().nextResetAfter(epochMillis);
        }
    };

    static final long MINUTE = 60_000L;

    /** The reset schedule of a one-minute calendar quota, which has an edge at every minute. */
    static final CronPattern EVERY_MINUTE = CronPattern.parse("reset schedule", "* * * * *");

    private final Limits.Parameters base;
    private final List<ScheduleEntry> schedule;
    private final CronPattern resetSchedule;
    private final ZoneId resetZone;
    /** The fixed window in milliseconds; zero for other limits. */
    private final long windowMillis;
    private final long windowPhase;
    private volatile ActiveAt activeCache;
    private volatile NextAfter changeCache;
    private volatile NextAfter resetCache;

    private record ActiveAt(long minute, Limits.Parameters parameters) {
    }

    /** {@code next} is the answer for every query in {@code [from, next)}. */
    private record NextAfter(long from, long next) {
    }

    /** The evaluation of a limit whose parameters outside schedule windows are {@code base}. */
    LimitTimes(Limits.Parameters base, List<ScheduleEntry> schedule, CronPattern resetSchedule, ZoneId resetZone,
            long windowMillis, long windowPhase) {
        this.base = base;
        this.schedule = schedule;
        this.resetSchedule = resetSchedule;
        this.resetZone = resetZone;
        this.windowMillis = windowMillis;
        this.windowPhase = windowPhase;
    }

    /** {@link Limit#capacity()} in milli-tokens. */
    long capacityMilli() {
        return base.capacityMilli();
    }

    /** {@link Limit#refillAmount()} in milli-tokens. */
    long refillAmountMilli() {
        return base.refillAmountMilli();
    }

    /** {@link Limit#refillPeriod()} in whole milliseconds; zero for a quota. */
    long refillPeriodMillis() {
        return base.refillPeriodMillis();
    }

    /** The parameters in force during the minute that contains {@code epochMillis}. */
    Limits.Parameters parametersAt(long epochMillis) {
        if (schedule.isEmpty()) {
            return base;
        }
        long minute = Math.floorDiv(epochMillis, MINUTE);
        ActiveAt cached = activeCache;
        if (cached != null && cached.minute() == minute) {
            return cached.parameters();
        }
        Limits.Parameters parameters = base;
        Instant instant = Instant.ofEpochMilli(epochMillis);
        for (ScheduleEntry entry : schedule) {
            if (entry.pattern().matches(instant, entry.zone())) {
                parameters = apply(entry);
                break;
            }
        }
        activeCache = new ActiveAt(minute, parameters);
        return parameters;
    }

    private Limits.Parameters apply(ScheduleEntry entry) {
        if (entry.isScaled()) {
            return new Limits.Parameters(scale(base.capacityMilli(), entry.scale()),
                    base.drips() ? scale(base.refillAmountMilli(), entry.scale()) : 0, base.refillPeriodMillis());
        }
        return new Limits.Parameters(entry.capacity() * Limits.MILLI,
                entry.refillPeriod() != null ? entry.refillAmount() * Limits.MILLI : base.refillAmountMilli(),
                entry.refillPeriod() != null ? entry.refillPeriod().toMillis() : base.refillPeriodMillis());
    }

    private static long scale(long milli, double scale) {
        double scaled = Math.rint(milli * scale);
        return (long) Math.max(1, Math.min(scaled, Limit.MAX_TOKENS * Limits.MILLI));
    }

    /** The largest capacity the limit has in any window, in milli-tokens: a request above it can never pass. */
    long maxCapacityMilli() {
        long max = base.capacityMilli();
        for (ScheduleEntry entry : schedule) {
            max = Math.max(max, apply(entry).capacityMilli());
        }
        return max;
    }

    /**
     * The first instant after {@code epochMillis} at which a schedule window opens or closes, so that the
     * parameters may change; {@link Limits#NEVER} for an unscheduled limit.
     */
    long nextChangeAfter(long epochMillis) {
        if (schedule.isEmpty()) {
            return Limits.NEVER;
        }
        NextAfter cached = changeCache;
        if (cached != null && epochMillis >= cached.from() && epochMillis < cached.next()) {
            return cached.next();
        }
        long next = Limits.NEVER;
        Instant after = Instant.ofEpochMilli(epochMillis);
        for (ScheduleEntry entry : schedule) {
            long change = entry.pattern().nextChange(after, entry.zone()).map(Instant::toEpochMilli)
                    .orElse(Limits.NEVER);
            next = Math.min(next, change);
        }
        changeCache = new NextAfter(epochMillis, next);
        return next;
    }

    /**
     * The first reset edge of a calendar quota (or window boundary of a fixed window) strictly after
     * {@code epochMillis}; {@link Limits#NEVER} for other limits.
     */
    long nextResetAfter(long epochMillis) {
        if (windowMillis != 0) {
            return nextMultiple(epochMillis, windowMillis, windowPhase);
        }
        if (resetSchedule == null) {
            return Limits.NEVER;
        }
        if (EVERY_MINUTE.equals(resetSchedule)) {
            return nextMultiple(epochMillis, MINUTE, 0);
        }
        NextAfter cached = resetCache;
        if (cached != null && epochMillis >= cached.from() && epochMillis < cached.next()) {
            return cached.next();
        }
        long next = resetSchedule.nextEdge(Instant.ofEpochMilli(epochMillis), resetZone)
                .map(Instant::toEpochMilli).orElse(Limits.NEVER);
        resetCache = new NextAfter(epochMillis, next);
        return next;
    }

    /** The first {@code phase + k * step} strictly after {@code epochMillis}; {@link Limits#NEVER} past the range. */
    private static long nextMultiple(long epochMillis, long step, long phase) {
        try {
            long k = Math.addExact(Math.floorDiv(Math.subtractExact(epochMillis, phase), step), 1);
            return Math.addExact(Math.multiplyExact(k, step), phase);
        } catch (ArithmeticException e) {
            return Limits.NEVER;
        }
    }
}
