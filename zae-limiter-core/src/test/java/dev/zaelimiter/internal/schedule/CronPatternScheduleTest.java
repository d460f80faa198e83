package dev.zaelimiter.internal.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Matching, reset edges and window changes. Expected instants are worked out by hand from the 2026 daylight-saving
 * rules: New York moves from EST (-5) to EDT (-4) at 02:00 local on 8 March and back at 02:00 local on 1 November;
 * Berlin moves from CET (+1) to CEST (+2) at 02:00 local on 29 March and back at 03:00 local on 25 October.
 */
class CronPatternScheduleTest {

    static final ZoneId UTC = ZoneOffset.UTC;
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    static CronPattern cron(String expression) {
        return CronPattern.parse("cron", expression);
    }

    static Instant at(String instant) {
        return Instant.parse(instant);
    }

    /** Every edge in [from, to), found by calling nextEdge from each edge it returns. */
    static List<Instant> edges(CronPattern pattern, ZoneId zone, Instant from, Instant to) {
        List<Instant> found = new ArrayList<>();
        Optional<Instant> next = pattern.nextEdge(from.minusNanos(1), zone);
        while (next.isPresent() && next.get().isBefore(to)) {
            found.add(next.get());
            next = pattern.nextEdge(next.get(), zone);
        }
        return found;
    }

    /** Every change in [from, to), found by calling nextChange from each change it returns. */
    static List<Instant> changes(CronPattern pattern, ZoneId zone, Instant from, Instant to) {
        List<Instant> found = new ArrayList<>();
        Optional<Instant> next = pattern.nextChange(from, zone);
        while (next.isPresent() && next.get().isBefore(to)) {
            found.add(next.get());
            next = pattern.nextChange(next.get(), zone);
        }
        return found;
    }

    static Instant startOfDay(LocalDate date, ZoneId zone) {
        return date.atStartOfDay(zone).toInstant();
    }

    @Nested
    class Matching {

        @Test
        void businessHoursOnWeekdays() {
            CronPattern window = cron("* 9-17 * * MON-FRI");
            // 6 March 2026 is a Friday, 7 March a Saturday
            assertThat(window.matches(LocalDateTime.of(2026, 3, 6, 9, 0))).isTrue();
            assertThat(window.matches(LocalDateTime.of(2026, 3, 6, 17, 59, 59))).isTrue();
            assertThat(window.matches(LocalDateTime.of(2026, 3, 6, 18, 0))).isFalse();
            assertThat(window.matches(LocalDateTime.of(2026, 3, 6, 8, 59, 59))).isFalse();
            assertThat(window.matches(LocalDateTime.of(2026, 3, 7, 12, 0))).isFalse();
        }

        @Test
        void secondsAreIgnored() {
            CronPattern minute = cron("30 2 * * *");
            assertThat(minute.matches(at("2026-05-01T02:30:00Z"), UTC)).isTrue();
            assertThat(minute.matches(at("2026-05-01T02:30:59.999Z"), UTC)).isTrue();
            assertThat(minute.matches(at("2026-05-01T02:31:00Z"), UTC)).isFalse();
            assertThat(minute.matches(at("2026-05-01T02:29:59.999Z"), UTC)).isFalse();
        }

        @Test
        void instantsAreSeenInTheirZone() {
            CronPattern nine = cron("* 9 * * *");
            assertThat(nine.matches(at("2026-01-15T14:30:00Z"), NEW_YORK)).isTrue(); // 09:30 EST
            assertThat(nine.matches(at("2026-07-15T13:30:00Z"), NEW_YORK)).isTrue(); // 09:30 EDT
            assertThat(nine.matches(at("2026-07-15T14:30:00Z"), NEW_YORK)).isFalse(); // 10:30 EDT
            assertThat(nine.matches(at("2026-07-15T09:30:00Z"), UTC)).isTrue();
            assertThat(nine.matches(at("2026-01-15T03:45:00Z"), ZoneId.of("Asia/Kolkata"))).isTrue(); // 09:15 IST
        }

        @Test
        void bothDayFieldsRestrictedMeansEither() {
            CronPattern either = cron("0 0 1 * MON");
            assertThat(either.matches(LocalDateTime.of(2026, 3, 2, 0, 0))).isTrue(); // Monday the 2nd
            assertThat(either.matches(LocalDateTime.of(2026, 4, 1, 0, 0))).isTrue(); // Wednesday the 1st
            assertThat(either.matches(LocalDateTime.of(2026, 3, 3, 0, 0))).isFalse(); // Tuesday the 3rd
        }

        @Test
        void oneDayFieldUnrestrictedMeansBoth() {
            assertThat(cron("0 0 1 * *").matches(LocalDateTime.of(2026, 3, 2, 0, 0))).isFalse();
            assertThat(cron("0 0 * * MON").matches(LocalDateTime.of(2026, 4, 1, 0, 0))).isFalse();
            // a day-of-week field covering the whole week is unrestricted however it is written
            CronPattern everyWeekday = cron("0 0 1 * 0-6");
            assertThat(everyWeekday).isEqualTo(cron("0 0 1 * *"));
            assertThat(everyWeekday.matches(LocalDateTime.of(2026, 3, 2, 0, 0))).isFalse();
            // restricted day of month with a month filter: both must hold
            CronPattern firstMondayish = cron("0 0 1-7 3 *");
            assertThat(firstMondayish.matches(LocalDateTime.of(2026, 3, 7, 0, 0))).isTrue();
            assertThat(firstMondayish.matches(LocalDateTime.of(2026, 3, 8, 0, 0))).isFalse();
            assertThat(firstMondayish.matches(LocalDateTime.of(2026, 4, 1, 0, 0))).isFalse();
        }

        @Test
        void eitherDayStillRespectsMonth() {
            CronPattern pattern = cron("0 0 13 JUN FRI");
            assertThat(pattern.matches(LocalDateTime.of(2026, 6, 13, 0, 0))).isTrue(); // Saturday the 13th
            assertThat(pattern.matches(LocalDateTime.of(2026, 6, 5, 0, 0))).isTrue(); // a Friday
            assertThat(pattern.matches(LocalDateTime.of(2026, 7, 3, 0, 0))).isFalse(); // a Friday in July
        }

        @Test
        void stepsAndLists() {
            CronPattern quarter = cron("*/15 */6 * JAN,JUL *");
            assertThat(quarter.matches(LocalDateTime.of(2026, 1, 10, 18, 45))).isTrue();
            assertThat(quarter.matches(LocalDateTime.of(2026, 1, 10, 18, 46))).isFalse();
            assertThat(quarter.matches(LocalDateTime.of(2026, 1, 10, 19, 45))).isFalse();
            assertThat(quarter.matches(LocalDateTime.of(2026, 2, 10, 18, 45))).isFalse();
            CronPattern weekdaysAlternate = cron("0 12 * * 1-5/2");
            assertThat(weekdaysAlternate.matches(LocalDateTime.of(2026, 3, 4, 12, 0))).isTrue(); // Wednesday
            assertThat(weekdaysAlternate.matches(LocalDateTime.of(2026, 3, 5, 12, 0))).isFalse(); // Thursday
        }
    }

    @Nested
    class Edges {

        @Test
        void dailyMidnightInNewYorkIsSixHoursAfterSixInTheEvening() {
            CronPattern daily = cron("0 0 * * *");
            Instant winter = at("2026-01-15T23:00:00Z"); // 18:00 EST
            assertThat(daily.nextEdge(winter, NEW_YORK)).contains(at("2026-01-16T05:00:00Z"));
            assertThat(Duration.between(winter, daily.nextEdge(winter, NEW_YORK).orElseThrow()))
                    .isEqualTo(Duration.ofHours(6));
            Instant summer = at("2026-07-15T22:00:00Z"); // 18:00 EDT
            assertThat(daily.nextEdge(summer, NEW_YORK)).contains(at("2026-07-16T04:00:00Z"));
        }

        @Test
        void edgesAreStrictlyAfter() {
            CronPattern daily = cron("0 0 * * *");
            assertThat(daily.nextEdge(at("2026-05-01T00:00:00Z"), UTC)).contains(at("2026-05-02T00:00:00Z"));
            assertThat(daily.nextEdge(at("2026-04-30T23:59:59.999Z"), UTC)).contains(at("2026-05-01T00:00:00Z"));
            assertThat(daily.nextEdge(at("2026-05-01T00:00:30Z"), UTC)).contains(at("2026-05-02T00:00:00Z"));
        }

        @Test
        void aWindowHasOneEdgeAtItsStart() {
            CronPattern window = cron("* 9-17 * * MON-FRI");
            // Friday 6 March 10:00 EST, inside the window: the next edge is Monday 9 March 09:00 EDT
            assertThat(window.nextEdge(at("2026-03-06T15:00:00Z"), NEW_YORK)).contains(at("2026-03-09T13:00:00Z"));
            // Monday at 08:00 EDT: the window opens at 09:00 EDT
            assertThat(window.nextEdge(at("2026-03-09T12:00:00Z"), NEW_YORK)).contains(at("2026-03-09T13:00:00Z"));
        }

        @Test
        void monthlyAcrossMonthEndsAndTheYearEnd() {
            CronPattern monthly = cron("0 0 1 * *");
            assertThat(monthly.nextEdge(at("2026-01-31T12:00:00Z"), UTC)).contains(at("2026-02-01T00:00:00Z"));
            assertThat(monthly.nextEdge(at("2026-02-01T00:00:00Z"), UTC)).contains(at("2026-03-01T00:00:00Z"));
            assertThat(monthly.nextEdge(at("2026-02-28T23:59:00Z"), UTC)).contains(at("2026-03-01T00:00:00Z"));
            assertThat(monthly.nextEdge(at("2026-04-30T23:59:59Z"), UTC)).contains(at("2026-05-01T00:00:00Z"));
            assertThat(monthly.nextEdge(at("2026-12-31T23:30:00Z"), UTC)).contains(at("2027-01-01T00:00:00Z"));
            // New York: 31 December 18:00 EST -> 1 January 00:00 EST
            assertThat(monthly.nextEdge(at("2026-12-31T23:00:00Z"), NEW_YORK)).contains(at("2027-01-01T05:00:00Z"));
            // across the spring change: 1 March is EST, 1 April is EDT
            assertThat(monthly.nextEdge(at("2026-03-01T05:00:00Z"), NEW_YORK)).contains(at("2026-04-01T04:00:00Z"));
            assertThat(edges(monthly, UTC, at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z"))).hasSize(12);
        }

        @Test
        void leapDay() {
            CronPattern leap = cron("0 0 29 2 *");
            assertThat(leap.nextEdge(at("2026-01-01T00:00:00Z"), UTC)).contains(at("2028-02-29T00:00:00Z"));
            assertThat(leap.nextEdge(at("2028-02-29T00:00:00Z"), UTC)).contains(at("2032-02-29T00:00:00Z"));
            // 2100 is not a leap year: from March 2096 the next 29 February is in 2104, still within the horizon
            assertThat(leap.nextEdge(at("2096-03-01T00:00:00Z"), UTC)).contains(at("2104-02-29T00:00:00Z"));
        }

        @Test
        void noEdgeWithinTheHorizon() {
            assertThat(cron("* * * * *").nextEdge(at("2026-01-01T00:00:00Z"), UTC)).isEmpty();
            assertThat(cron("* * * * *").nextEdge(at("2026-01-01T00:00:00Z"), NEW_YORK)).isEmpty();
        }

        @Test
        void springForwardGapInNewYorkFiresOnceAtTheGapEnd() {
            CronPattern halfPastTwo = cron("30 2 * * *");
            Instant gapEnd = at("2026-03-08T07:00:00Z"); // 03:00 EDT
            assertThat(halfPastTwo.nextEdge(at("2026-03-07T12:00:00Z"), NEW_YORK)).contains(gapEnd);
            assertThat(halfPastTwo.nextEdge(at("2026-03-08T06:59:59Z"), NEW_YORK)).contains(gapEnd);
            assertThat(halfPastTwo.nextEdge(gapEnd, NEW_YORK)).contains(at("2026-03-09T06:30:00Z"));
            LocalDate day = LocalDate.of(2026, 3, 8);
            assertThat(edges(halfPastTwo, NEW_YORK, startOfDay(day, NEW_YORK), startOfDay(day.plusDays(1), NEW_YORK)))
                    .containsExactly(gapEnd);
        }

        @Test
        void severalEdgesInOneGapFireOnceTogether() {
            CronPattern pattern = cron("0,30 2 * * *");
            assertThat(pattern.nextEdge(at("2026-03-08T06:00:00Z"), NEW_YORK)).contains(at("2026-03-08T07:00:00Z"));
            assertThat(pattern.nextEdge(at("2026-03-08T07:00:00Z"), NEW_YORK)).contains(at("2026-03-09T06:00:00Z"));
        }

        @Test
        void springForwardGapInBerlinFiresOnceAtTheGapEnd() {
            CronPattern halfPastTwo = cron("30 2 * * *");
            Instant gapEnd = at("2026-03-29T01:00:00Z"); // 03:00 CEST
            assertThat(halfPastTwo.nextEdge(at("2026-03-28T12:00:00Z"), BERLIN)).contains(gapEnd);
            assertThat(halfPastTwo.nextEdge(gapEnd, BERLIN)).contains(at("2026-03-30T00:30:00Z"));
        }

        @Test
        void fallBackOverlapInNewYorkFiresOnceAtTheFirstOccurrence() {
            CronPattern halfPastOne = cron("30 1 * * *");
            Instant first = at("2026-11-01T05:30:00Z"); // 01:30 EDT; the second 01:30 (EST) is 06:30Z
            Instant nextDay = at("2026-11-02T06:30:00Z"); // 01:30 EST
            assertThat(halfPastOne.nextEdge(at("2026-10-31T12:00:00Z"), NEW_YORK)).contains(first);
            assertThat(halfPastOne.nextEdge(first, NEW_YORK)).contains(nextDay);
            assertThat(halfPastOne.nextEdge(at("2026-11-01T06:00:00Z"), NEW_YORK)).contains(nextDay);
            assertThat(halfPastOne.nextEdge(at("2026-11-01T06:29:59Z"), NEW_YORK)).contains(nextDay);
            LocalDate day = LocalDate.of(2026, 11, 1);
            assertThat(edges(halfPastOne, NEW_YORK, startOfDay(day, NEW_YORK), startOfDay(day.plusDays(1), NEW_YORK)))
                    .containsExactly(first);
            // the window itself matches on both passes
            assertThat(halfPastOne.matches(at("2026-11-01T06:30:00Z"), NEW_YORK)).isTrue();
        }

        @Test
        void fallBackOverlapInBerlinFiresOnceAtTheFirstOccurrence() {
            CronPattern halfPastTwo = cron("30 2 * * *");
            Instant first = at("2026-10-25T00:30:00Z"); // 02:30 CEST; the second (CET) is 01:30Z
            assertThat(halfPastTwo.nextEdge(at("2026-10-24T12:00:00Z"), BERLIN)).contains(first);
            assertThat(halfPastTwo.nextEdge(first, BERLIN)).contains(at("2026-10-26T01:30:00Z"));
            assertThat(halfPastTwo.nextEdge(at("2026-10-25T01:00:00Z"), BERLIN)).contains(at("2026-10-26T01:30:00Z"));
        }

        @Test
        void hourlyEdgesOnTheShortAndLongDays() {
            CronPattern hourly = cron("0 * * * *");
            LocalDate springNy = LocalDate.of(2026, 3, 8);
            List<Instant> short1 = edges(hourly, NEW_YORK, startOfDay(springNy, NEW_YORK),
                    startOfDay(springNy.plusDays(1), NEW_YORK));
            assertThat(Duration.between(startOfDay(springNy, NEW_YORK), startOfDay(springNy.plusDays(1), NEW_YORK)))
                    .isEqualTo(Duration.ofHours(23));
            assertThat(short1).hasSize(23).doesNotHaveDuplicates().contains(at("2026-03-08T07:00:00Z"));

            LocalDate springBerlin = LocalDate.of(2026, 3, 29);
            assertThat(edges(hourly, BERLIN, startOfDay(springBerlin, BERLIN),
                    startOfDay(springBerlin.plusDays(1), BERLIN))).hasSize(23);

            // 25-hour days: the repeated local hour fires once, so 24 reset edges (but 25 window openings, below)
            LocalDate fallNy = LocalDate.of(2026, 11, 1);
            List<Instant> long1 = edges(hourly, NEW_YORK, startOfDay(fallNy, NEW_YORK),
                    startOfDay(fallNy.plusDays(1), NEW_YORK));
            assertThat(long1).hasSize(24).contains(at("2026-11-01T05:00:00Z"), at("2026-11-01T07:00:00Z"))
                    .doesNotContain(at("2026-11-01T06:00:00Z"));

            LocalDate fallBerlin = LocalDate.of(2026, 10, 25);
            assertThat(edges(hourly, BERLIN, startOfDay(fallBerlin, BERLIN), startOfDay(fallBerlin.plusDays(1), BERLIN)))
                    .hasSize(24).contains(at("2026-10-25T00:00:00Z")).doesNotContain(at("2026-10-25T01:00:00Z"));
        }

        @Test
        void edgesInZonesWithoutDaylightSaving() {
            CronPattern nine = cron("0 9 * * *");
            assertThat(nine.nextEdge(at("2026-03-08T00:00:00Z"), ZoneId.of("Asia/Kolkata")))
                    .contains(at("2026-03-08T03:30:00Z"));
            assertThat(nine.nextEdge(at("2026-03-08T00:00:00Z"), ZoneId.of("Asia/Kathmandu")))
                    .contains(at("2026-03-08T03:15:00Z"));
        }
    }

    @Nested
    class Changes {

        @Test
        void businessHoursInNewYorkAcrossSpringForward() {
            CronPattern window = cron("* 9-17 * * MON-FRI");
            // Friday 6 March (EST): 09:00-18:00 local is 14:00Z-23:00Z; Monday 9 March (EDT): 13:00Z-22:00Z
            assertThat(changes(window, NEW_YORK, at("2026-03-06T12:00:00Z"), at("2026-03-10T00:00:00Z")))
                    .containsExactly(at("2026-03-06T14:00:00Z"), at("2026-03-06T23:00:00Z"),
                            at("2026-03-09T13:00:00Z"), at("2026-03-09T22:00:00Z"));
            // from inside the window, the next change is its close
            assertThat(window.nextChange(at("2026-03-06T20:00:00Z"), NEW_YORK)).contains(at("2026-03-06T23:00:00Z"));
        }

        @Test
        void businessHoursInNewYorkAcrossFallBack() {
            CronPattern window = cron("* 9-17 * * MON-FRI");
            // Friday 30 October (EDT): 13:00Z-22:00Z; Monday 2 November (EST): 14:00Z-23:00Z
            assertThat(changes(window, NEW_YORK, at("2026-10-30T12:00:00Z"), at("2026-11-03T00:00:00Z")))
                    .containsExactly(at("2026-10-30T13:00:00Z"), at("2026-10-30T22:00:00Z"),
                            at("2026-11-02T14:00:00Z"), at("2026-11-02T23:00:00Z"));
        }

        @Test
        void businessHoursInBerlinAcrossBothChanges() {
            CronPattern window = cron("* 9-17 * * MON-FRI");
            // Friday 27 March (CET) 08:00Z-17:00Z; Monday 30 March (CEST) 07:00Z-16:00Z
            assertThat(changes(window, BERLIN, at("2026-03-27T00:00:00Z"), at("2026-03-31T00:00:00Z")))
                    .containsExactly(at("2026-03-27T08:00:00Z"), at("2026-03-27T17:00:00Z"),
                            at("2026-03-30T07:00:00Z"), at("2026-03-30T16:00:00Z"));
            // Friday 23 October (CEST) 07:00Z-16:00Z; Monday 26 October (CET) 08:00Z-17:00Z
            assertThat(changes(window, BERLIN, at("2026-10-23T00:00:00Z"), at("2026-10-27T00:00:00Z")))
                    .containsExactly(at("2026-10-23T07:00:00Z"), at("2026-10-23T16:00:00Z"),
                            at("2026-10-26T08:00:00Z"), at("2026-10-26T17:00:00Z"));
        }

        @Test
        void aWindowWhollyInTheGapDoesNotOpenThatDay() {
            CronPattern twoAm = cron("* 2 * * *");
            assertThat(twoAm.nextChange(at("2026-03-07T12:00:00Z"), NEW_YORK)).contains(at("2026-03-09T06:00:00Z"));
        }

        @Test
        void aWindowStraddlingTheGapChangesAtTheGapEnd() {
            // 01:00-02:59 local: opens 01:00 EST (06:00Z), closes when the clock jumps to 03:00 (07:00Z)
            assertThat(changes(cron("* 1-2 * * *"), NEW_YORK, at("2026-03-08T05:00:00Z"), at("2026-03-08T12:00:00Z")))
                    .containsExactly(at("2026-03-08T06:00:00Z"), at("2026-03-08T07:00:00Z"));
            // 02:00-03:59 local: opens when the clock jumps to 03:00 (07:00Z), closes 04:00 EDT (08:00Z)
            assertThat(changes(cron("* 2-3 * * *"), NEW_YORK, at("2026-03-08T05:00:00Z"), at("2026-03-08T12:00:00Z")))
                    .containsExactly(at("2026-03-08T07:00:00Z"), at("2026-03-08T08:00:00Z"));
        }

        @Test
        void aWindowInTheOverlapStaysOpenBothPasses() {
            // 01:00-01:59 local on 1 November: 01:00 EDT (05:00Z) until 02:00 EST (07:00Z)
            assertThat(changes(cron("* 1 * * *"), NEW_YORK, at("2026-11-01T04:30:00Z"), at("2026-11-01T12:00:00Z")))
                    .containsExactly(at("2026-11-01T05:00:00Z"), at("2026-11-01T07:00:00Z"));
            // a one-minute window opens on each pass
            assertThat(changes(cron("30 1 * * *"), NEW_YORK, at("2026-11-01T04:30:00Z"), at("2026-11-01T12:00:00Z")))
                    .containsExactly(at("2026-11-01T05:30:00Z"), at("2026-11-01T05:31:00Z"),
                            at("2026-11-01T06:30:00Z"), at("2026-11-01T06:31:00Z"));
        }

        @Test
        void hourlyWindowsOpen23And25TimesOnTheShortAndLongDays() {
            CronPattern hourly = cron("0 * * * *");
            for (Object[] day : new Object[][] {
                    {LocalDate.of(2026, 3, 8), NEW_YORK, 23}, {LocalDate.of(2026, 11, 1), NEW_YORK, 25},
                    {LocalDate.of(2026, 3, 29), BERLIN, 23}, {LocalDate.of(2026, 10, 25), BERLIN, 25},
                    {LocalDate.of(2026, 6, 1), NEW_YORK, 24}}) {
                LocalDate date = (LocalDate) day[0];
                ZoneId zone = (ZoneId) day[1];
                Instant start = startOfDay(date, zone);
                List<Instant> all = changes(hourly, zone, start.minusNanos(1), startOfDay(date.plusDays(1), zone));
                long openings = all.stream().filter(change -> hourly.matches(change, zone)).count();
                assertThat(openings).as("%s in %s", date, zone).isEqualTo(((Integer) day[2]).longValue());
            }
        }

        @Test
        void noChangeWithinTheHorizon() {
            assertThat(cron("* * * * *").nextChange(at("2026-01-01T00:00:00Z"), NEW_YORK)).isEmpty();
            assertThat(cron("* * * * *").nextChange(at("2026-01-01T00:00:00Z"), UTC)).isEmpty();
        }

        @Test
        void rareWindowsAreFound() {
            CronPattern leap = cron("* * 29 2 *");
            assertThat(leap.nextChange(at("2026-01-01T00:00:00Z"), UTC)).contains(at("2028-02-29T00:00:00Z"));
            assertThat(leap.nextChange(at("2028-02-29T00:00:00Z"), UTC)).contains(at("2028-03-01T00:00:00Z"));
            assertThat(leap.nextChange(at("2028-02-29T05:00:00Z"), NEW_YORK)).contains(at("2028-03-01T05:00:00Z"));
        }
    }
}
