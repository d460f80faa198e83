package dev.zaelimiter.internal.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * nextEdge and nextChange checked against brute-force scans, minute by minute, over a few days from random
 * instants, for random patterns, in zones with and without daylight saving (including Lord Howe's half-hour shift).
 */
class CronPatternPropertyTest {

    static final int DAYS = 3;

    /** 2025-01-01 to 2031-01-01. */
    static final long FROM = 1_735_689_600L;
    static final long TO = 1_924_992_000L;

    static final List<String> FIXED_ZONES = List.of("UTC", "+05:30", "Asia/Kathmandu", "-03:00");
    static final List<String> DST_ZONES = List.of("America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
            "Australia/Sydney", "Pacific/Chatham", "America/Santiago");

    @Provide
    Arbitrary<String> patterns() {
        return Combinators.combine(
                Arbitraries.of("*", "0", "*/15", "5-10", "0,30", "*/7", "59", "30"),
                Arbitraries.of("*", "9-17", "*/5", "0", "2", "1-3", "23"),
                Arbitraries.of("*", "*", "*", "1", "1-7", "15,28", "*/10", "31"),
                Arbitraries.of("*", "*", "*", "1-6", "MAR,OCT,NOV", "2"),
                Arbitraries.of("*", "*", "MON-FRI", "SAT,SUN", "0", "7", "TUE", "SUN-WED"))
                .as((m, h, dom, mon, dow) -> m + " " + h + " " + dom + " " + mon + " " + dow)
                .filter(CronPatternPropertyTest::valid);
    }

    private static boolean valid(String expression) {
        try {
            CronPattern.parse("cron", expression);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Provide
    Arbitrary<String> fixedZones() {
        return Arbitraries.of(FIXED_ZONES);
    }

    @Provide
    Arbitrary<String> dstZones() {
        return Arbitraries.of(DST_ZONES);
    }

    /** Local edges, minute by minute, each mapped to its first occurrence (or to the end of its gap). */
    static List<Instant> bruteForceLocalEdges(CronPattern pattern, Instant after, ZoneId zone, Instant until) {
        List<Instant> found = new ArrayList<>();
        LocalDateTime local = LocalDateTime.ofInstant(after, zone).truncatedTo(ChronoUnit.MINUTES);
        for (int i = 0; i <= (DAYS + 1) * 1440; i++) {
            LocalDateTime minute = local.plusMinutes(i);
            if (pattern.matches(minute) && !pattern.matches(minute.minusMinutes(1))) {
                Instant instant = firstOccurrence(minute, zone);
                boolean fresh = found.isEmpty() || instant.isAfter(found.get(found.size() - 1));
                if (instant.isAfter(after) && instant.isBefore(until) && fresh) {
                    found.add(instant);
                }
            }
        }
        return found;
    }

    static Instant firstOccurrence(LocalDateTime local, ZoneId zone) {
        ZoneOffsetTransition transition = zone.getRules().getTransition(local);
        if (transition != null && transition.isGap()) {
            return transition.getInstant();
        }
        return ZonedDateTime.ofLocal(local, zone, null).toInstant(); // the earlier offset in an overlap
    }

    /** Real minutes, one after another: a minute that matches after one that does not. */
    static List<Instant> bruteForceRealEdges(CronPattern pattern, Instant after, ZoneId zone, Instant until) {
        List<Instant> found = new ArrayList<>();
        for (Instant minute = after.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60); minute.isBefore(until);
                minute = minute.plusSeconds(60)) {
            if (pattern.matches(minute, zone) && !pattern.matches(minute.minusSeconds(60), zone)) {
                found.add(minute);
            }
        }
        return found;
    }

    static List<Instant> edgesFromNextEdge(CronPattern pattern, Instant after, ZoneId zone, Instant until) {
        List<Instant> found = new ArrayList<>();
        Optional<Instant> next = pattern.nextEdge(after, zone);
        while (next.isPresent() && next.get().isBefore(until)) {
            Instant edge = next.get();
            assertThat(edge).isAfter(found.isEmpty() ? after : found.get(found.size() - 1));
            found.add(edge);
            next = pattern.nextEdge(edge, zone);
        }
        return found;
    }

    @Property(tries = 300)
    void noEdgeIsSkippedWithoutDaylightSaving(@ForAll("patterns") String expression,
            @ForAll("fixedZones") String zoneName, @ForAll @LongRange(min = FROM, max = TO) long epochSecond,
            @ForAll @IntRange(min = 0, max = 999) int millis) {
        CronPattern pattern = CronPattern.parse("cron", expression);
        ZoneId zone = ZoneId.of(zoneName);
        Instant after = Instant.ofEpochSecond(epochSecond).plusMillis(millis);
        Instant until = after.plus(DAYS, ChronoUnit.DAYS);

        List<Instant> edges = edgesFromNextEdge(pattern, after, zone, until);
        assertThat(edges).isEqualTo(bruteForceRealEdges(pattern, after, zone, until));
        for (Instant edge : edges) {
            assertThat(edge).isAfter(after);
            assertThat(edge.getEpochSecond() % 60).isZero();
            assertThat(edge.getNano()).isZero();
            assertThat(pattern.matches(edge, zone)).isTrue();
            assertThat(pattern.matches(edge.minusSeconds(60), zone)).isFalse();
        }
    }

    @Property(tries = 300)
    void noEdgeIsSkippedWithDaylightSaving(@ForAll("patterns") String expression,
            @ForAll("dstZones") String zoneName, @ForAll @IntRange(min = 2025, max = 2030) int year,
            @ForAll @IntRange(min = 0, max = 1) int whichTransition,
            @ForAll @LongRange(min = -2 * 86_400, max = 86_400) long secondsFromTransition) {
        CronPattern pattern = CronPattern.parse("cron", expression);
        ZoneId zone = ZoneId.of(zoneName);
        Instant after = nearTransition(zone, year, whichTransition, secondsFromTransition);
        Instant until = after.plus(DAYS, ChronoUnit.DAYS);

        List<Instant> edges = edgesFromNextEdge(pattern, after, zone, until);
        assertThat(edges).isEqualTo(bruteForceLocalEdges(pattern, after, zone, until));
        ZoneRules rules = zone.getRules();
        for (Instant edge : edges) {
            assertThat(edge).isAfter(after);
            assertThat(LocalDateTime.ofInstant(edge, zone).getSecond()).isZero();
            ZoneOffsetTransition previous = rules.previousTransition(edge.plusNanos(1));
            boolean gapEnd = previous != null && previous.isGap() && previous.getInstant().equals(edge);
            assertThat(pattern.matches(edge, zone) || gapEnd).as("edge %s matches or ends a gap", edge).isTrue();
        }
    }

    @Property(tries = 300)
    void nextChangeIsTheFirstMinuteWhoseMatchDiffers(@ForAll("patterns") String expression,
            @ForAll("dstZones") String dstZone, @ForAll("fixedZones") String fixedZone, @ForAll boolean useDst,
            @ForAll @IntRange(min = 2025, max = 2030) int year, @ForAll @IntRange(min = 0, max = 1) int which,
            @ForAll @LongRange(min = -2 * 86_400, max = 86_400) long seconds) {
        CronPattern pattern = CronPattern.parse("cron", expression);
        ZoneId zone = ZoneId.of(useDst ? dstZone : fixedZone);
        Instant after = useDst ? nearTransition(zone, year, which, seconds)
                : Instant.ofEpochSecond(FROM + Math.floorMod(seconds * 7919L, TO - FROM)).plusMillis(123);
        boolean state = pattern.matches(after, zone);

        Instant expected = null;
        for (Instant minute = after.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
                minute.isBefore(after.plus(DAYS, ChronoUnit.DAYS)); minute = minute.plusSeconds(60)) {
            if (pattern.matches(minute, zone) != state) {
                expected = minute;
                break;
            }
        }
        Optional<Instant> actual = pattern.nextChange(after, zone);
        if (expected != null) {
            assertThat(actual).contains(expected);
        } else {
            Instant until = after.plus(DAYS, ChronoUnit.DAYS);
            assertThat(actual.filter(change -> change.isBefore(until))).as("no change before %s", until).isEmpty();
        }
    }

    @Property(tries = 300)
    void canonicalFormRoundTrips(@ForAll("patterns") String expression,
            @ForAll @LongRange(min = FROM, max = TO) long epochSecond) {
        CronPattern pattern = CronPattern.parse("cron", expression);
        CronPattern again = CronPattern.parse("cron", pattern.expression());
        assertThat(again).isEqualTo(pattern);
        assertThat(again.expression()).isEqualTo(pattern.expression());
        LocalDateTime local = LocalDateTime.ofEpochSecond(epochSecond, 0, java.time.ZoneOffset.UTC);
        for (int i = 0; i < 48; i++) {
            LocalDateTime probe = local.plusMinutes(37L * i);
            assertThat(again.matches(probe)).isEqualTo(pattern.matches(probe));
        }
    }

    /** An instant close to the first or second offset transition of the zone in that year. */
    static Instant nearTransition(ZoneId zone, int year, int which, long seconds) {
        ZoneRules rules = zone.getRules();
        ZoneOffsetTransition transition = rules.nextTransition(
                ZonedDateTime.of(year, 1, 1, 0, 0, 0, 0, zone).toInstant());
        if (which == 1 && transition != null) {
            transition = rules.nextTransition(transition.getInstant());
        }
        Instant base = transition == null ? ZonedDateTime.of(year, 6, 1, 0, 0, 0, 0, zone).toInstant()
                : transition.getInstant();
        return base.plusSeconds(seconds).plusMillis(Math.floorMod(seconds, 1000));
    }
}
