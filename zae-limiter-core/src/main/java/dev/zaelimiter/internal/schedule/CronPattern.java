package dev.zaelimiter.internal.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.field.CronFieldName;
import com.cronutils.model.field.expression.Always;
import com.cronutils.model.field.expression.And;
import com.cronutils.model.field.expression.Between;
import com.cronutils.model.field.expression.Every;
import com.cronutils.model.field.expression.FieldExpression;
import com.cronutils.model.field.expression.On;
import com.cronutils.model.field.expression.QuestionMark;
import com.cronutils.model.field.value.FieldValue;
import com.cronutils.model.field.value.IntegerFieldValue;
import com.cronutils.model.field.value.SpecialChar;
import com.cronutils.parser.CronParser;
import dev.zaelimiter.ValidationException;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.Period;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A five-field cron pattern ({@code minute hour day-of-month month day-of-week}) that selects minutes of local
 * wall-clock time. Immutable and thread-safe.
 *
 * <h2>Syntax</h2>
 * Each field is {@code *}, a value, a range {@code FROM-TO}, a step ({@code *}{@code /15}, {@code 0/2},
 * {@code 1-5/2}) or a comma-separated list of these. Months and days of week may be written as names
 * ({@code JAN}–{@code DEC}, {@code SUN}–{@code SAT}, any case). Not supported, and rejected with a message that
 * says what to write instead: a sixth (seconds) field, {@code L}, {@code W}, {@code #}, {@code ?}, nicknames such
 * as {@code @daily}, values out of range, ranges that run backwards, and patterns that can never match (such as
 * {@code 0 0 30 2 *}).
 *
 * <h2>Sunday</h2>
 * On its own or in a list, Sunday may be written {@code 0}, {@code 7} or {@code SUN}; all three mean the same. In a
 * range or a step Sunday is {@code 0} ({@code SUN-THU} is {@code 0-4}, {@code SUN/2} is {@code 0/2}), so a range
 * that ends at Sunday ({@code MON-SUN}, {@code SAT-SUN}, {@code 1-7}) or starts at 7 ({@code 7-4}) runs backwards
 * and is rejected: write {@code *} or a list ({@code SAT,SUN}) instead.
 *
 * <h2>Day of month and day of week</h2>
 * As in standard cron, when both day fields are restricted, a day matches if <em>either</em> matches:
 * {@code 0 0 1 * MON} is midnight on the 1st and on every Monday. When at least one of them is unrestricted, both
 * must match (the unrestricted one always does). A field counts as unrestricted when it covers every value, however
 * it is written: {@code 0-6} and {@code SUN-SAT} are the same as {@code *} in the day-of-week field.
 *
 * <h2>Canonical form</h2>
 * {@link #expression()} renders the stored sets, so patterns that select the same minutes with the same day rule
 * have the same form: months and days of week as names ({@code 1-5} → {@code MON-FRI}, {@code 1,7} in the month
 * field → {@code JAN,JUL}), days of week Monday first with Sunday last and always as {@code SUN}, runs of three or
 * more as ranges, and evenly spaced minutes, hours or days that run to the end of the field as a step
 * ({@code *}{@code /15}). Equality, hash code and {@link #toString()} follow the canonical form.
 *
 * <h2>Time zones and daylight saving</h2>
 * Matching is always on local wall-clock time in the zone given. {@link #matches(Instant, ZoneId)} asks whether
 * the local minute containing an instant matches, so a {@code * 9-17 * * MON-FRI} window in New York is open from
 * 09:00 to 18:00 local on both sides of a change, however the UTC offsets move. Across a change:
 * <ul>
 * <li>local minutes that do not exist (the spring-forward gap) never match as a window: a window that lies wholly
 * in the gap does not open that day, and one that straddles it opens or closes at the instant the gap ends;</li>
 * <li>local minutes that occur twice (the fall-back overlap) match both times: a {@code * 1 * * *} window on the
 * fall-back day in New York stays open for two real hours;</li>
 * <li>a reset <em>edge</em> ({@link #nextEdge}) is a local minute, and fires once: at the instant the gap ends if
 * its minute falls in a gap (several edges in one gap fire once together), and at the first occurrence if it
 * falls in an overlap, never on the second pass.</li>
 * </ul>
 * Searches look at most {@link #HORIZON} ahead, long enough to find {@code 0 0 29 2 *} from any date.
 *
 * <p>Longer than most files on purpose: matching and the search for the next edge or change of one pattern belong
 * together (parsing lives in CronSyntax, fields in CronField).
 */
public final class CronPattern {

    /** How far ahead {@link #nextChange} and {@link #nextEdge} look before they give up (plus one day). */
    public static final Period HORIZON = Period.ofYears(8);

    private static final CronParser PARSER = new CronParser(definition());

    private static final Map<String, String> NICKNAMES = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *", "@weekly", "0 0 * * SUN",
            "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");

    private static final long MINUTE_FULL = CronField.MINUTE.full;

    private final long minutes;
    private final long hours;
    private final long daysOfMonth;
    private final long months;
    private final long daysOfWeek;
    /** Both day fields restricted: a day matches when either matches. */
    private final boolean eitherDay;
    private final String canonical;

    private CronPattern(long minutes, long hours, long daysOfMonth, long months, long daysOfWeek) {
        this.minutes = minutes;
        this.hours = hours;
        this.daysOfMonth = daysOfMonth;
        this.months = months;
        this.daysOfWeek = daysOfWeek;
        this.eitherDay = daysOfMonth != CronField.DAY_OF_MONTH.full && daysOfWeek != CronField.DAY_OF_WEEK.full;
        this.canonical = CronField.MINUTE.render(minutes) + " " + CronField.HOUR.render(hours) + " "
                + CronField.DAY_OF_MONTH.render(daysOfMonth) + " " + CronField.MONTH.render(months) + " "
                + CronField.DAY_OF_WEEK.render(daysOfWeek);
    }

    private static CronDefinition definition() {
        // Day of week: valid range 0-6 makes cron-utils map the name SUN to 0; a lone 7 is mapped to 0 as well.
        // A 7 inside a range or a step never reaches cron-utils: CronSyntax rejects it first.
        return CronDefinitionBuilder.defineCron()
                .withMinutes().withValidRange(0, 59).and()
                .withHours().withValidRange(0, 23).and()
                .withDayOfMonth().withValidRange(1, 31).and()
                .withMonth().withValidRange(1, 12).and()
                .withDayOfWeek().withValidRange(0, 6).withMondayDoWValue(1).withIntMapping(7, 0).and()
                .instance();
    }

    /**
     * Parses a five-field cron pattern: minute, hour, day of month, month, day of week.
     *
     * @param field      the name of the argument or property the expression came from, for the error message
     * @param expression the pattern, such as {@code * 9-17 * * MON-FRI} or {@code 0 0 1 * *}
     * @throws ValidationException naming {@code field} and the expression, with a rule that says what to write
     *                             instead
     */
    public static CronPattern parse(String field, String expression) {
        if (expression == null || expression.isBlank()) {
            throw new ValidationException(field, expression, "a cron expression is required; write five fields,"
                    + " minute hour day-of-month month day-of-week, such as '0 0 * * *'");
        }
        String trimmed = expression.trim();
        String[] parts = trimmed.split("\\s+");
        if (trimmed.startsWith("@")) {
            String same = NICKNAMES.get(parts[0].toLowerCase(Locale.ROOT));
            throw new ValidationException(field, expression, "nicknames such as @daily are not supported; write"
                    + " the five fields" + (same == null ? ", such as '0 0 * * *'" : " instead: '" + same + "'"));
        }
        if (parts.length == 6) {
            throw new ValidationException(field, expression, "it has 6 fields, but seconds are not addressable"
                    + " (the finest unit is one minute); drop the first field and write '"
                    + String.join(" ", Arrays.copyOfRange(parts, 1, 6)) + "'");
        }
        if (parts.length != 5) {
            throw new ValidationException(field, expression, "it has " + parts.length + " field"
                    + (parts.length == 1 ? "" : "s") + ", but a pattern has exactly five: minute hour day-of-month"
                    + " month day-of-week, such as '0 0 * * *'");
        }
        CronSyntax.check(field, expression, parts);
        Cron cron;
        try {
            cron = PARSER.parse(String.join(" ", parts));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(field, expression, "it is not a valid five-field cron (" + e.getMessage()
                    + "); write minute hour day-of-month month day-of-week, such as '0 0 * * *'");
        }
        CronPattern pattern = new CronPattern(
                expand(field, expression, cron, CronFieldName.MINUTE, CronField.MINUTE),
                expand(field, expression, cron, CronFieldName.HOUR, CronField.HOUR),
                expand(field, expression, cron, CronFieldName.DAY_OF_MONTH, CronField.DAY_OF_MONTH),
                expand(field, expression, cron, CronFieldName.MONTH, CronField.MONTH),
                expand(field, expression, cron, CronFieldName.DAY_OF_WEEK, CronField.DAY_OF_WEEK));
        pattern.checkSatisfiable(field, expression);
        return pattern;
    }

    private static long expand(String field, String expression, Cron cron, CronFieldName name, CronField cronField) {
        long bits = expand(cron.retrieve(name).getExpression(), cronField);
        if (bits == 0 || (bits & ~cronField.full) != 0) {
            throw new ValidationException(field, expression, "the " + cronField.label + " field selects no valid"
                    + " value; write values from " + cronField.display(cronField.min) + " to "
                    + cronField.display(cronField.max));
        }
        return bits;
    }

    /** Walks cron-utils' expression tree into a bitset; 0 for anything we do not support. */
    private static long expand(FieldExpression expression, CronField cronField) {
        if (expression instanceof Always) {
            return cronField.full;
        }
        if (expression instanceof And and) {
            long bits = 0;
            for (FieldExpression part : and.getExpressions()) {
                long partBits = expand(part, cronField);
                if (partBits == 0) {
                    return 0;
                }
                bits |= partBits;
            }
            return bits;
        }
        if (expression instanceof On on) {
            SpecialChar special = on.getSpecialChar() == null ? SpecialChar.NONE : on.getSpecialChar().getValue();
            int value = on.getTime().getValue();
            return special == SpecialChar.NONE && inRange(value, cronField) ? 1L << value : 0;
        }
        if (expression instanceof Between between) {
            int from = intValue(between.getFrom());
            int to = intValue(between.getTo());
            return inRange(from, cronField) && inRange(to, cronField) && from <= to
                    ? CronField.span(from, to, 1) : 0;
        }
        if (expression instanceof Every every) {
            int step = every.getPeriod().getValue();
            FieldExpression inner = every.getExpression();
            int from;
            int to;
            if (inner instanceof Always) {
                from = cronField.min;
                to = cronField.max;
            } else if (inner instanceof On on) {
                from = on.getTime().getValue();
                to = cronField.max;
            } else if (inner instanceof Between between) {
                from = intValue(between.getFrom());
                to = intValue(between.getTo());
            } else {
                return 0;
            }
            return step >= 1 && inRange(from, cronField) && inRange(to, cronField) && from <= to
                    ? CronField.span(from, to, step) : 0;
        }
        if (expression instanceof QuestionMark) {
            return 0;
        }
        return 0;
    }

    private static int intValue(FieldValue<?> value) {
        return value instanceof IntegerFieldValue integer ? integer.getValue() : -1;
    }

    private static boolean inRange(int value, CronField cronField) {
        return value >= cronField.min && value <= cronField.max;
    }

    private void checkSatisfiable(String field, String expression) {
        if (eitherDay || daysOfMonth == CronField.DAY_OF_MONTH.full) {
            return; // every month has every day of the week, and days 1-28
        }
        int longest = 0;
        for (int m = 1; m <= 12; m++) {
            if ((months >>> m & 1L) != 0) {
                int length = Month.of(m).maxLength();
                if ((daysOfMonth & CronField.span(1, length, 1)) != 0) {
                    return;
                }
                longest = Math.max(longest, length);
            }
        }
        String monthText = CronField.MONTH.render(months);
        boolean one = Long.bitCount(months) == 1;
        throw new ValidationException(field, expression, "it can never match: " + monthText + " never "
                + (one ? "has" : "have") + " day " + CronField.DAY_OF_MONTH.render(daysOfMonth) + "; choose days"
                + " that exist in " + (one ? "that month" : "those months") + " (1 to " + longest + "), and for"
                + " the end of a month use day 1 of the next");
    }

    /** The canonical form, such as {@code * 9-17 * * MON-FRI}; equal patterns have equal forms. */
    public String expression() {
        return canonical;
    }

    /** Whether the wall-clock minute of {@code local} matches; seconds and smaller are ignored. */
    public boolean matches(LocalDateTime local) {
        return (hours >>> local.getHour() & 1L) != 0
                && (minutes >>> local.getMinute() & 1L) != 0
                && dayMatches(local.getMonthValue(), local.getDayOfMonth(), local.getDayOfWeek().getValue());
    }

    /** Whether the local minute, in {@code zone}, that contains {@code instant} matches. */
    public boolean matches(Instant instant, ZoneId zone) {
        return matches(LocalDateTime.ofInstant(instant, zone));
    }

    private boolean dayMatches(LocalDate date) {
        return dayMatches(date.getMonthValue(), date.getDayOfMonth(), date.getDayOfWeek().getValue());
    }

    /** {@code isoDayOfWeek} is 1 (Monday) to 7 (Sunday). */
    private boolean dayMatches(int month, int dayOfMonth, int isoDayOfWeek) {
        if ((months >>> month & 1L) == 0) {
            return false;
        }
        boolean dom = (daysOfMonth >>> dayOfMonth & 1L) != 0;
        boolean dow = (daysOfWeek >>> (isoDayOfWeek % 7) & 1L) != 0;
        return eitherDay ? dom || dow : dom && dow;
    }

    /**
     * The first instant strictly after {@code after} at which {@link #matches(Instant, ZoneId)} changes value: a
     * window opening (if it is closed at {@code after}) or closing (if it is open). The instant is the start of a
     * local minute, or a daylight-saving transition when the change of offset alone opens or closes the window.
     * Empty if the value does not change within {@link #HORIZON}.
     */
    public Optional<Instant> nextChange(Instant after, ZoneId zone) {
        ZoneRules rules = zone.getRules();
        boolean state = matches(after, zone);
        LocalDate horizon = LocalDateTime.ofInstant(after, zone).toLocalDate().plus(HORIZON).plusDays(1);
        Instant at = after;
        while (true) {
            ZoneOffset offset = rules.getOffset(at);
            LocalDateTime local = LocalDateTime.ofInstant(at, offset);
            ZoneOffsetTransition transition = rules.nextTransition(at);
            // Within one offset, local time runs in step with real time up to the next transition.
            LocalDateTime limit = transition == null ? null : transition.getDateTimeBefore();
            LocalDateTime found = find(local.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1), limit, !state, horizon);
            if (found != null) {
                return Optional.of(found.toInstant(offset));
            }
            if (transition == null || transition.getDateTimeAfter().toLocalDate().isAfter(horizon)) {
                return Optional.empty();
            }
            at = transition.getInstant();
            if (matches(at, zone) != state) {
                return Optional.of(at);
            }
        }
    }

    /**
     * The first reset edge strictly after {@code after}: the start of a local minute that matches while the local
     * minute before it does not, in {@code zone}. An edge whose local minute does not exist (spring-forward gap)
     * fires at the instant the gap ends; an edge whose local minute occurs twice (fall-back overlap) fires at its
     * first occurrence only. Calling this again with the edge it returned gives the next edge, so each fires once.
     * Empty if there is no edge within {@link #HORIZON} (for example for {@code * * * * *}, which never stops
     * matching).
     */
    public Optional<Instant> nextEdge(Instant after, ZoneId zone) {
        ZoneRules rules = zone.getRules();
        LocalDateTime local = LocalDateTime.ofInstant(after, zone);
        LocalDate horizon = local.toLocalDate().plus(HORIZON).plusDays(1);
        // Local edges map to instants in order; any edge before this local minute maps to an instant <= after.
        LocalDateTime from = local.truncatedTo(ChronoUnit.MINUTES);
        while (true) {
            LocalDateTime edge = nextLocalEdge(from, horizon);
            if (edge == null) {
                return Optional.empty();
            }
            Instant at = firstInstantOf(edge, rules);
            if (at.isAfter(after)) {
                return Optional.of(at);
            }
            from = edge.plusMinutes(1);
        }
    }

    /** The real instant a local minute stands for: its first occurrence, or the end of the gap it falls in. */
    private static Instant firstInstantOf(LocalDateTime local, ZoneRules rules) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        if (offsets.isEmpty()) {
            return rules.getTransition(local).getInstant();
        }
        Instant first = local.toInstant(offsets.get(0));
        for (int i = 1; i < offsets.size(); i++) {
            Instant other = local.toInstant(offsets.get(i));
            if (other.isBefore(first)) {
                first = other;
            }
        }
        return first;
    }

    /** The first local minute at or after {@code from} that matches while the minute before it does not. */
    private LocalDateTime nextLocalEdge(LocalDateTime from, LocalDate horizon) {
        LocalDateTime match = find(from, null, true, horizon);
        if (match == null) {
            return null;
        }
        if (!match.equals(from) || !matches(from.minusMinutes(1))) {
            return match; // the minute before a first match after from does not match
        }
        LocalDateTime gap = find(from.plusMinutes(1), null, false, horizon);
        return gap == null ? null : find(gap, null, true, horizon);
    }

    /**
     * The first local minute at or after {@code from} (a minute start) whose match is {@code want}, before
     * {@code limit} (exclusive, or none) and on or before {@code horizon}. Skips whole months and days by the day
     * fields, then hours, then minutes, so it never walks minute by minute across days.
     */
    private LocalDateTime find(LocalDateTime from, LocalDateTime limit, boolean want, LocalDate horizon) {
        LocalDate date = from.toLocalDate();
        int start = from.getHour() * 60 + from.getMinute();
        LocalDate lastDate = limit == null || limit.toLocalDate().isAfter(horizon) ? horizon : limit.toLocalDate();
        while (!date.isAfter(lastDate)) {
            int minuteOfDay;
            if ((months >>> date.getMonthValue() & 1L) == 0) {
                if (!want) {
                    minuteOfDay = start;
                } else {
                    date = date.withDayOfMonth(1).plusMonths(1);
                    start = 0;
                    continue;
                }
            } else if (!dayMatches(date)) {
                if (!want) {
                    minuteOfDay = start;
                } else {
                    date = date.plusDays(1);
                    start = 0;
                    continue;
                }
            } else {
                minuteOfDay = firstMinuteOfDay(start, want);
                if (minuteOfDay < 0) {
                    date = date.plusDays(1);
                    start = 0;
                    continue;
                }
            }
            LocalDateTime found = date.atTime(minuteOfDay / 60, minuteOfDay % 60);
            return limit == null || found.isBefore(limit) ? found : null;
        }
        return null;
    }

    /** In a day whose date matches: the first minute of the day at or after {@code start} whose match is want. */
    private int firstMinuteOfDay(int start, boolean want) {
        int minute = start % 60;
        for (int hour = start / 60; hour < 24; hour++, minute = 0) {
            boolean hourMatches = (hours >>> hour & 1L) != 0;
            long candidates;
            if (want) {
                if (!hourMatches) {
                    continue;
                }
                candidates = minutes & (-1L << minute);
            } else {
                if (!hourMatches) {
                    return hour * 60 + minute;
                }
                candidates = ~minutes & MINUTE_FULL & (-1L << minute);
            }
            if (candidates != 0) {
                return hour * 60 + Long.numberOfTrailingZeros(candidates);
            }
        }
        return -1;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CronPattern pattern && canonical.equals(pattern.canonical);
    }

    @Override
    public int hashCode() {
        return canonical.hashCode();
    }

    /** The canonical form, as {@link #expression()}. */
    @Override
    public String toString() {
        return canonical;
    }
}
