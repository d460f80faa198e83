package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.schedule.CronPattern;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A named budget. Immutable; every factory validates its arguments. A limit recovers in exactly one way:
 * <ul>
 *   <li>it <b>drips</b>: a token bucket of {@link #capacity()} tokens that gets {@link #refillAmount()} back every
 *       {@link #refillPeriod()}, continuously ({@link #perMinute}, {@link #custom}, ...);</li>
 *   <li>it <b>resets</b> on a calendar: the whole allowance comes back at each edge of a cron pattern
 *       ({@link #quota});</li>
 *   <li>it resets a fixed time after each caller's first admitted request ({@link #sessionQuota});</li>
 *   <li>it resets at every multiple of a fixed window, shorter than a minute if need be ({@link #fixedWindow}).</li>
 * </ul>
 * A schedule ({@link #withSchedule}) changes capacity and refill in cron windows.
 *
 * <pre>{@code
 * Limit.perMinute("rpm", 100)                 // 100 per minute, burst 100
 * Limit.perMinute("tpm", 10_000).withBurst(20_000)
 * Limit.quota("monthly", 10_000, "0 0 1 * *", ZoneId.of("America/New_York"))
 * Limit.fixedWindow("per10s", 20, Duration.ofSeconds(10))   // 20 in each 10 s window: :00-:09.999, :10-:19.999 ...
 * Limit.perMinute("rpm", 1000).withSchedule(ScheduleEntry.scaled("* 9-17 * * MON-FRI", NEW_YORK, 0.5))
 * }</pre>
 *
 * <p>The factories users call are here; LimitChecks holds their shared checks and LimitTimes the evaluation of a
 * limit's schedule at an instant (with its caches).
 */
public final class Limit {

    /** The largest capacity or refill amount, in tokens. Balances are kept in milli-tokens in a {@code long}. */
    public static final long MAX_TOKENS = 1_000_000_000_000_000L;

    /**
     * The most limits one configuration level (or one call's override) holds, so that a configuration item and a
     * bucket item stay far below DynamoDB's 400 KB per item.
     */
    public static final int MAX_LIMITS_PER_LEVEL = 32;

    /** The most schedule entries one limit holds, for the same reason. */
    public static final int MAX_SCHEDULE_ENTRIES = 16;

    /**
     * The longest refill period, session length ({@code resetAfter}) or lease timeout: 36,600 days (about a
     * century), so that adding one to any instant never leaves the epoch-millisecond range.
     */
    public static final Duration MAX_PERIOD = Duration.ofDays(36_600);

    /** Milli-tokens per token: all internal arithmetic is in milli-tokens. */
    static final long MILLI = Limits.MILLI;

    private final String name;
    private final long capacity;
    private final long refillAmount;
    private final Duration refillPeriod;
    private final boolean soft;
    private final List<ScheduleEntry> schedule;
    private final CronPattern resetSchedule;
    private final ZoneId resetZone;
    private final Duration resetAfter;
    private final Duration leaseTimeout;
    private final Duration fixedWindow;
    private final long windowPhase;
    private final boolean localReservations;

    /** The evaluation of this limit at an instant, with its caches. */
    private final LimitTimes times;

    static {
        Limits.install(LimitTimes.ACCESS);
    }

    private Limit(String name, long capacity, long refillAmount, Duration refillPeriod, boolean soft,
            List<ScheduleEntry> schedule, CronPattern resetSchedule, ZoneId resetZone, Duration resetAfter) {
        this(name, capacity, refillAmount, refillPeriod, soft, schedule, resetSchedule, resetZone, resetAfter, null);
    }

    private Limit(String name, long capacity, long refillAmount, Duration refillPeriod, boolean soft,
            List<ScheduleEntry> schedule, CronPattern resetSchedule, ZoneId resetZone, Duration resetAfter,
            Duration leaseTimeout) {
        this(name, capacity, refillAmount, refillPeriod, soft, schedule, resetSchedule, resetZone, resetAfter,
                leaseTimeout, null, 0);
    }

    private Limit(String name, long capacity, long refillAmount, Duration refillPeriod, boolean soft,
            List<ScheduleEntry> schedule, CronPattern resetSchedule, ZoneId resetZone, Duration resetAfter,
            Duration leaseTimeout, Duration fixedWindow, long windowOrigin) {
        this(name, capacity, refillAmount, refillPeriod, soft, schedule, resetSchedule, resetZone, resetAfter,
                leaseTimeout, fixedWindow, windowOrigin, false);
    }

    private Limit(String name, long capacity, long refillAmount, Duration refillPeriod, boolean soft,
            List<ScheduleEntry> schedule, CronPattern resetSchedule, ZoneId resetZone, Duration resetAfter,
            Duration leaseTimeout, Duration fixedWindow, long windowOrigin, boolean localReservations) {
        this.name = Identifiers.limitName("limit name", name);
        this.leaseTimeout = leaseTimeout;
        if (fixedWindow != null) {
            LimitChecks.period("limit " + name + " window", fixedWindow, "a fixed window");
            if (fixedWindow.getNano() % 1_000_000 != 0) {
                throw new ValidationException("limit " + name + " window", fixedWindow, "a fixed window is a whole"
                        + " number of milliseconds");
            }
        }
        this.fixedWindow = fixedWindow;
        long windowMillis = fixedWindow == null ? 0 : fixedWindow.toMillis();
        this.windowPhase = fixedWindow == null ? 0 : Math.floorMod(windowOrigin, windowMillis);
        this.capacity = LimitChecks.tokens(name, "capacity", capacity, false);
        this.refillAmount = LimitChecks.tokens(name, "refillAmount", refillAmount, true);
        this.soft = soft;
        if (schedule.size() > MAX_SCHEDULE_ENTRIES) {
            throw new ValidationException("limit " + name + " schedule", schedule.size() + " entries",
                    "a limit holds at most " + MAX_SCHEDULE_ENTRIES + " schedule entries");
        }
        this.schedule = List.copyOf(schedule);
        this.resetSchedule = resetSchedule;
        this.resetZone = resetZone;
        this.resetAfter = resetAfter;
        boolean drips = refillAmount > 0;
        boolean resets = resetSchedule != null || resetAfter != null || leaseTimeout != null || fixedWindow != null;
        if (leaseTimeout != null) {
            LimitChecks.period("limit " + name + " leaseTimeout", leaseTimeout, "the lease timeout");
        }
        if (drips) {
            Arguments.required("refillPeriod", refillPeriod);
            LimitChecks.period("limit " + name + " refillPeriod", refillPeriod, "the refill period");
        }
        this.refillPeriod = drips ? refillPeriod : null;
        if (drips && resets) {
            throw new ValidationException("limit " + name, refillAmount, "a limit either drips (a refill amount)"
                    + " or resets (a reset schedule or reset-after), never both; drop the refill amount of a quota");
        }
        if (!drips && !resets) {
            throw new ValidationException("limit " + name + " refillAmount", refillAmount, "a limit with no refill"
                    + " and no reset could never recover; give it a refill amount, or make it a quota");
        }
        if (resetAfter != null) {
            LimitChecks.period("limit " + name + " resetAfter", resetAfter, "the session length");
        }
        if (resetSchedule != null && !LimitTimes.EVERY_MINUTE.equals(resetSchedule)
                && resetSchedule.nextEdge(Instant.EPOCH, resetZone).isEmpty()) {
            throw new ValidationException("limit " + name + " reset schedule", resetSchedule.expression(),
                    "the pattern never has a reset edge (it must stop matching at some point); write an instant"
                            + " such as '0 0 * * *'");
        }
        LimitChecks.oneZone(name, resetZone, this.schedule);
        for (ScheduleEntry entry : this.schedule) {
            if (!drips && entry.refillPeriod() != null) {
                throw new ValidationException("limit " + name + " schedule", entry.toString(),
                        (leaseTimeout != null ? "a concurrency limit" : "a quota") + " does not drip, so its schedule"
                                + " entries set a capacity or a scale but no refill");
            }
        }
        if (localReservations && (!drips || soft || !this.schedule.isEmpty())) {
            throw new ValidationException("limit " + name + " localReservations", toStringWithout(),
                    "only a hard limit that drips at one rate reserves (not a quota, a fixed window, a concurrency"
                            + " limit, a soft limit or a scheduled one)");
        }
        this.localReservations = localReservations;
        this.times = new LimitTimes(new Limits.Parameters(this.capacity * MILLI, this.refillAmount * MILLI,
                drips ? refillPeriod.toMillis() : 0), this.schedule, resetSchedule, resetZone, windowMillis,
                windowPhase);
    }

    private String toStringWithout() {
        return name + (soft ? " (soft)" : "") + (schedule.isEmpty() ? "" : " (scheduled)")
                + (refillAmount > 0 ? "" : " (does not drip)");
    }

    private Limit copy(long capacity, boolean soft, List<ScheduleEntry> schedule) {
        return new Limit(name, capacity, refillAmount, refillPeriod, soft, schedule, resetSchedule, resetZone,
                resetAfter, leaseTimeout, fixedWindow, windowPhase, localReservations);
    }

    // ---- factories

    /** {@code rate} tokens per second; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perSecond(String name, long rate) {
        return custom(name, rate, rate, Duration.ofSeconds(1));
    }

    /** {@code rate} tokens per minute; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perMinute(String name, long rate) {
        return custom(name, rate, rate, Duration.ofMinutes(1));
    }

    /** {@code rate} tokens per hour; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perHour(String name, long rate) {
        return custom(name, rate, rate, Duration.ofHours(1));
    }

    /** {@code rate} tokens per day; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perDay(String name, long rate) {
        return custom(name, rate, rate, Duration.ofDays(1));
    }

    /** A bucket of {@code capacity} tokens that gets {@code refillAmount} (more than zero) back every period. */
    public static Limit custom(String name, long capacity, long refillAmount, Duration refillPeriod) {
        if (refillAmount == 0 && capacity > 0) {
            throw new ValidationException("limit " + name + " refillAmount", refillAmount, "must be greater than"
                    + " zero; a limit that only comes back at a reset is a quota (Limit.quota)");
        }
        return new Limit(name, capacity, refillAmount, refillPeriod, false, List.of(), null, null, null);
    }

    /**
     * A calendar quota: {@code allowance} tokens that all come back at each edge of {@code cron} in {@code zone}
     * (for {@code 0 0 1 * *}, midnight on the 1st), with no drip in between. {@code * * * * *}, which matches
     * every minute, resets at the start of every minute; for shorter or other even periods use
     * {@link #fixedWindow}.
     */
    public static Limit quota(String name, long allowance, String cron, ZoneId zone) {
        CronPattern pattern = CronPattern.parse("limit " + name + " reset schedule", cron);
        return new Limit(name, allowance, 0, null, false, List.of(), pattern,
                Arguments.required("zone", zone).normalized(), null);
    }

    /** A session quota: {@code allowance} tokens for {@code resetAfter} from each caller's first admitted request. */
    public static Limit sessionQuota(String name, long allowance, Duration resetAfter) {
        return new Limit(name, allowance, 0, null, false, List.of(), null, null,
                Arguments.required("resetAfter", resetAfter));
    }

    /**
     * A fixed window: {@code allowance} tokens that all come back at every multiple of {@code window} since the
     * epoch (for ten seconds: at :00, :10, :20 ... of every minute), with no drip in between. The window is a whole
     * number of milliseconds, at least one and at most {@link #MAX_PERIOD}.
     */
    public static Limit fixedWindow(String name, long allowance, Duration window) {
        return fixedWindow(name, allowance, window, Instant.EPOCH);
    }

    /**
     * A fixed window aligned on {@code origin} instead of the epoch: the allowance comes back at {@code origin} plus
     * every multiple of {@code window}, before and after it. Only where {@code origin} falls within a window counts,
     * so origins a whole number of windows apart make equal limits; {@link #fixedWindowOrigin()} returns the first
     * boundary at or after the epoch. {@code origin} is a whole number of milliseconds.
     */
    public static Limit fixedWindow(String name, long allowance, Duration window, Instant origin) {
        Identifiers.limitName("limit name", name);
        Arguments.required("window", window);
        long originMillis = Arguments.epochMillis("limit " + name + " window origin",
                Arguments.required("origin", origin));
        if (origin.getNano() % 1_000_000 != 0) {
            throw new ValidationException("limit " + name + " window origin", origin, "an origin is a whole number of"
                    + " milliseconds");
        }
        return new Limit(name, allowance, 0, null, false, List.of(), null, null, null, null, window, originMillis);
    }

    /** The lease timeout of {@link #concurrency} limits when none is given. */
    public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofMinutes(5);

    /**
     * A concurrency limit: at most {@code maxInFlight} leases hold a slot at once. Every acquire on a bucket with
     * this limit takes one slot (unless it consumes 0 of it), and closing or rolling back the lease gives it back.
     * A slot whose lease is neither closed nor extended comes back by itself after {@link #DEFAULT_LEASE_TIMEOUT}.
     */
    public static Limit concurrency(String name, long maxInFlight) {
        return concurrency(name, maxInFlight, DEFAULT_LEASE_TIMEOUT);
    }

    /** A concurrency limit whose slots come back by themselves {@code leaseTimeout} after they were last renewed. */
    public static Limit concurrency(String name, long maxInFlight, Duration leaseTimeout) {
        return new Limit(name, maxInFlight, 0, null, false, List.of(), null, null, null,
                Arguments.required("leaseTimeout", leaseTimeout));
    }

    /** The same limit with another capacity (the largest burst); the refill rate is unchanged. */
    public Limit withBurst(long burst) {
        return copy(burst, soft, schedule);
    }

    /** The same limit, metered but never rejecting: it may go into debt instead. */
    public Limit soft() {
        return copy(capacity, true, schedule);
    }

    /** The same limit, enforced. */
    public Limit hard() {
        return copy(capacity, false, schedule);
    }

    /**
     * The same limit, for a hot bucket shared by many processes: a store may let each process take a small batch of
     * its tokens in one write and hand them out locally, and combine concurrent calls of one process into one write
     * (see docs/hot-buckets.md). Totals stay exact. Only a hard limit that drips at one rate (no schedule) reserves;
     * the in-memory store, already local, accepts the option and ignores it.
     *
     * @throws ValidationException on a quota, fixed window, concurrency, soft or scheduled limit
     */
    public Limit withLocalReservations() {
        return new Limit(name, capacity, refillAmount, refillPeriod, soft, schedule, resetSchedule, resetZone,
                resetAfter, leaseTimeout, fixedWindow, windowPhase, true);
    }

    /** Whether a store may reserve this limit's tokens per process ({@link #withLocalReservations()}). */
    public boolean localReservations() {
        return localReservations;
    }

    /**
     * The same limit with a schedule, replacing any earlier one. Entries are checked in order; the first whose window
     * contains the current minute supplies the parameters, and none means the base values. All entries share one
     * time zone.
     */
    public Limit withSchedule(ScheduleEntry... entries) {
        return withSchedule(Arrays.asList(Arguments.required("schedule", entries)));
    }

    /** As {@link #withSchedule(ScheduleEntry...)}. */
    public Limit withSchedule(List<ScheduleEntry> entries) {
        List<ScheduleEntry> schedule = new ArrayList<>(Arguments.required("schedule", entries));
        if (schedule.contains(null)) {
            throw new ValidationException("schedule", null, "a schedule cannot contain null");
        }
        return copy(capacity, soft, schedule);
    }

    /**
     * Checks a list of limits meant for one configuration level (or one call): not empty, at most
     * {@value #MAX_LIMITS_PER_LEVEL} limits, no nulls, each name once, and every scheduled limit in one time zone.
     *
     * @return an immutable copy
     * @throws ValidationException naming {@code field} and the rule broken
     */
    public static List<Limit> validateLevel(String field, List<Limit> limits) {
        return LimitChecks.level(field, limits);
    }

    // ---- accessors

    public String name() {
        return name;
    }

    /** The base capacity: the most tokens the bucket holds outside schedule windows (a quota's allowance). */
    public long capacity() {
        return capacity;
    }

    /** Tokens returned every {@link #refillPeriod()}; zero for a quota. */
    public long refillAmount() {
        return refillAmount;
    }

    /** The refill period, or {@code null} for a quota. */
    public Duration refillPeriod() {
        return refillPeriod;
    }

    /** True when the limit is metered only and never rejects. */
    public boolean isSoft() {
        return soft;
    }

    /** The schedule entries, in order; empty when the limit is not scheduled. */
    public List<ScheduleEntry> schedule() {
        return schedule;
    }

    /** The reset pattern of a calendar quota. */
    public Optional<String> resetSchedule() {
        return Optional.ofNullable(resetSchedule).map(CronPattern::expression);
    }

    /** The session length of a session quota. */
    public Optional<Duration> resetAfter() {
        return Optional.ofNullable(resetAfter);
    }

    /** The window of a fixed-window limit: its allowance comes back at every multiple of it. */
    public Optional<Duration> fixedWindow() {
        return Optional.ofNullable(fixedWindow);
    }

    /**
     * Where the windows of a fixed-window limit are aligned: the first window boundary at or after the epoch (the
     * epoch itself unless an origin moved them).
     */
    public Optional<Instant> fixedWindowOrigin() {
        return fixedWindow == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(windowPhase));
    }

    /** Whether the allowance comes back at resets rather than continuously. */
    public boolean isQuota() {
        return refillAmount == 0 && leaseTimeout == null;
    }

    /** Whether this is a concurrency limit, whose slots come back when leases end. */
    public boolean isConcurrency() {
        return leaseTimeout != null;
    }

    /** How long a concurrency slot lives without being renewed; empty for other limits. */
    public Optional<Duration> leaseTimeout() {
        return Optional.ofNullable(leaseTimeout);
    }

    /** The time zone of the schedule and reset, when the limit has either. */
    public Optional<ZoneId> zone() {
        if (resetZone != null) {
            return Optional.of(resetZone);
        }
        return schedule.isEmpty() ? Optional.empty() : Optional.of(schedule.get(0).zone());
    }

    /** The evaluation of this limit at an instant. */
    LimitTimes times() {
        return times;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Limit other
                && name.equals(other.name)
                && capacity == other.capacity
                && refillAmount == other.refillAmount
                && Objects.equals(refillPeriod, other.refillPeriod)
                && soft == other.soft
                && schedule.equals(other.schedule)
                && Objects.equals(resetSchedule, other.resetSchedule)
                && Objects.equals(resetZone, other.resetZone)
                && Objects.equals(resetAfter, other.resetAfter)
                && Objects.equals(leaseTimeout, other.leaseTimeout)
                && Objects.equals(fixedWindow, other.fixedWindow)
                && windowPhase == other.windowPhase
                && localReservations == other.localReservations;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, capacity, refillAmount, refillPeriod, soft, schedule, resetSchedule, resetZone,
                resetAfter, leaseTimeout, fixedWindow, windowPhase, localReservations);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Limit[").append(name).append(": ");
        if (resetSchedule != null) {
            sb.append(capacity).append(" quota, resets \"").append(resetSchedule.expression()).append("\" ")
                    .append(resetZone);
        } else if (resetAfter != null) {
            sb.append(capacity).append(" per session of ").append(resetAfter);
        } else if (fixedWindow != null) {
            sb.append(capacity).append(" per fixed window of ").append(fixedWindow);
            if (windowPhase != 0) {
                sb.append(" from ").append(Instant.ofEpochMilli(windowPhase));
            }
        } else if (leaseTimeout != null) {
            sb.append(capacity).append(" in flight, lease timeout ").append(leaseTimeout);
        } else {
            sb.append(refillAmount).append(" per ").append(refillPeriod).append(", capacity ").append(capacity);
        }
        if (soft) {
            sb.append(", soft");
        }
        if (!schedule.isEmpty()) {
            sb.append(", schedule ").append(schedule);
        }
        if (localReservations) {
            sb.append(", local reservations");
        }
        return sb.append(']').toString();
    }
}
