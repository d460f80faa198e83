package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The construction rules of schedule entries, scheduled limits and quotas (SPEC.md §3.6–3.7, issue 3): what is
 * rejected, with a message that names the field and says what to write instead, and what is accepted and how it
 * displays.
 */
class ScheduleEntryAndQuotaValidationTest {

    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static AbstractThrowableAssert<?, ? extends Throwable> rejects(Executable construction) {
        return assertThatThrownBy(construction::execute).isInstanceOf(ValidationException.class);
    }

    private static ValidationException rejection(Executable construction) {
        try {
            construction.execute();
        } catch (ValidationException e) {
            return e;
        } catch (Throwable t) {
            throw new AssertionError("expected a ValidationException, got " + t, t);
        }
        throw new AssertionError("expected a ValidationException, nothing was thrown");
    }

    // ---- cron syntax, in a schedule entry and in a quota

    @Test
    void sixFieldsAreRejectedWithTheFiveFieldForm() {
        ValidationException e = rejection(() -> ScheduleEntry.scaled("0 * 9-17 * * MON-FRI", NEW_YORK, 0.5));
        assertThat(e.field()).isEqualTo("schedule cron");
        assertThat(e.value()).isEqualTo("0 * 9-17 * * MON-FRI");
        assertThat(e).hasMessageContaining("6 fields").hasMessageContaining("seconds are not addressable")
                .hasMessageContaining("'* 9-17 * * MON-FRI'");

        ValidationException q = rejection(() -> Limit.quota("monthly", 10, "0 0 0 1 * *", NEW_YORK));
        assertThat(q.field()).isEqualTo("limit monthly reset schedule");
        assertThat(q).hasMessageContaining("6 fields").hasMessageContaining("'0 0 1 * *'");
    }

    @Test
    void otherFieldCountsAndBlanksAreRejected() {
        rejects(() -> ScheduleEntry.scaled("* 9-17 * *", 0.5)).hasMessageContaining("it has 4 fields")
                .hasMessageContaining("exactly five");
        rejects(() -> ScheduleEntry.scaled(" ", 0.5)).hasMessageContaining("a cron expression is required");
        rejects(() -> ScheduleEntry.scaled(null, 0.5)).hasMessageContaining("a cron expression is required");
        rejects(() -> Limit.quota("daily", 10, "@daily", NEW_YORK)).hasMessageContaining("nicknames")
                .hasMessageContaining("'0 0 * * *'");
    }

    @Test
    void lastIsRejected() {
        rejects(() -> ScheduleEntry.scaled("* * L * *", 0.5)).hasMessageContaining("L (last)")
                .hasMessageContaining("not supported").hasMessageContaining("0 0 1 * *");
        rejects(() -> Limit.quota("q", 10, "0 0 L * *", NEW_YORK)).hasMessageContaining("L (last)");
        rejects(() -> ScheduleEntry.scaled("* * * * 5L", 0.5)).hasMessageContaining("day-of-week field uses L");
    }

    @Test
    void nearestWeekdayIsRejected() {
        rejects(() -> ScheduleEntry.scaled("* * 15W * *", 0.5)).hasMessageContaining("W (nearest weekday)")
                .hasMessageContaining("MON-FRI");
        rejects(() -> Limit.quota("q", 10, "0 0 1W * *", NEW_YORK)).hasMessageContaining("W (nearest weekday)");
    }

    @Test
    void nthWeekdayIsRejected() {
        rejects(() -> ScheduleEntry.scaled("* 9-17 * * MON#2", NEW_YORK, 0.5))
                .hasMessageContaining("# (nth weekday of the month)").hasMessageContaining("not supported");
        rejects(() -> Limit.quota("q", 10, "0 0 * * 1#1", NEW_YORK))
                .hasMessageContaining("# (nth weekday of the month)");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "* 9-17 * * MON-SUN | MON-SUN | *",
            "* 9-17 * * SAT-SUN | SAT-SUN | SAT,SUN",
            "* 9-17 * * 6-7     | 6-7     | SAT,SUN",
            "* 9-17 * * 1-7     | 1-7     | *",
    })
    void rangesThatEndAtSundayAreRejected(String cron, String range, String instead) {
        rejects(() -> ScheduleEntry.scaled(cron, NEW_YORK, 0.5))
                .hasMessageContaining("day-of-week range " + range + " ends at Sunday")
                .hasMessageContaining("Sunday is 0 inside a range")
                .hasMessageContaining("write * or a list instead (here: " + instead + ")");
        rejects(() -> Limit.quota("q", 10, cron.replace("* 9-17", "0 9"), NEW_YORK))
                .hasMessageContaining("ends at Sunday");
    }

    @Test
    void aRangeThatStartsAtSevenIsRejected() {
        rejects(() -> ScheduleEntry.scaled("* * * * 7-4", 0.5))
                .hasMessageContaining("day-of-week range 7-4 starts at 7")
                .hasMessageContaining("write * or a list instead (here: MON-THU,SUN)");
    }

    @Test
    void sundayStartsARangeAsZero() {
        assertThat(ScheduleEntry.scaled("* * * * SUN-THU", 0.5))
                .isEqualTo(ScheduleEntry.scaled("* * * * 0-4", 0.5));
    }

    // ---- zones

    @Test
    void anUnknownZoneIsRejectedWithExamples() {
        ValidationException e = rejection(() -> ScheduleEntry.zone("schedule.tz", "Mars/Olympus"));
        assertThat(e.field()).isEqualTo("schedule.tz");
        assertThat(e.value()).isEqualTo("Mars/Olympus");
        assertThat(e).hasMessageContaining("'Mars/Olympus' is invalid")
                .hasMessageContaining("not a known time zone")
                .hasMessageContaining("'America/New_York'");
        rejects(() -> ScheduleEntry.zone("schedule.tz", "America/New York")).hasMessageContaining("time zone");
        assertThat(ScheduleEntry.zone("schedule.tz", "Europe/Berlin")).isEqualTo(BERLIN);
        assertThat(ScheduleEntry.zone("schedule.tz", null).normalized()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    void entriesDefaultToUtcWhateverTheJvmZone() {
        TimeZone before = TimeZone.getDefault();
        ScheduleEntry implicit;
        ScheduleEntry nullZone;
        try {
            TimeZone.setDefault(TimeZone.getTimeZone("Asia/Tokyo"));
            implicit = ScheduleEntry.scaled("* 9-17 * * *", 0.5);
            nullZone = ScheduleEntry.of("* 9-17 * * *", null, null, 10L, null, null);
        } finally {
            TimeZone.setDefault(before);
        }
        assertThat(implicit.zone().normalized()).isEqualTo(ZoneOffset.UTC);
        assertThat(nullZone.zone().normalized()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    void theEntriesOfOneLimitShareOneZone() {
        ValidationException e = rejection(() -> Limit.perMinute("rpm", 100).withSchedule(
                ScheduleEntry.scaled("* 9-17 * * MON-FRI", NEW_YORK, 0.5),
                ScheduleEntry.scaled("* * * * SAT,SUN", BERLIN, 2.0)));
        assertThat(e.field()).isEqualTo("limit rpm schedule");
        assertThat(e.value()).isEqualTo("Europe/Berlin");
        assertThat(e).hasMessageContaining("same time zone").hasMessageContaining("America/New_York here");

        rejects(() -> Limit.quota("monthly", 1000, "0 0 1 * *", NEW_YORK)
                .withSchedule(ScheduleEntry.scaled("* * * * SAT,SUN", BERLIN, 2.0)))
                .hasMessageContaining("same time zone");
        assertThatCode(() -> Limit.quota("monthly", 1000, "0 0 1 * *", NEW_YORK)
                .withSchedule(ScheduleEntry.scaled("* * * * SAT,SUN", NEW_YORK, 2.0))).doesNotThrowAnyException();
    }

    /**
     * UTC has several spellings in {@code java.time}: the default of an entry ({@link ZoneOffset#UTC}), the id
     * {@code "UTC"} that {@link ScheduleEntry#zone} parses from configuration, and {@code "Etc/UTC"}. They are one
     * zone, so a limit or a level that mixes the spellings uses one zone.
     */
    @Test
    void utcWrittenAnyWayIsOneZoneOnOneLimit() {
        ZoneId parsedUtc = ScheduleEntry.zone("tz", "UTC");
        assertThatCode(() -> Limit.perMinute("rpm", 100).withSchedule(
                ScheduleEntry.scaled("* 9-17 * * MON-FRI", 0.5),
                ScheduleEntry.scaled("* * * * SAT,SUN", parsedUtc, 2.0))).doesNotThrowAnyException();
        assertThatCode(() -> Limit.quota("monthly", 1000, "0 0 1 * *", ZoneId.of("Etc/UTC"))
                .withSchedule(ScheduleEntry.scaled("* * * * SAT,SUN", 2.0))).doesNotThrowAnyException();
    }

    /** As {@link #utcWrittenAnyWayIsOneZoneOnOneLimit()}, for the limits of one configuration level. */
    @Test
    void utcWrittenAnyWayIsOneZoneOnOneLevel() {
        ZoneId parsedUtc = ScheduleEntry.zone("tz", "UTC");
        RateLimiter limiter = RateLimiter.builder().build();
        assertThatCode(() -> limiter.admin().setResourceDefaults("api", List.of(
                Limit.perMinute("rpm", 100).withSchedule(ScheduleEntry.scaled("* 9-17 * * MON-FRI", 0.5)),
                Limit.quota("monthly", 1000, "0 0 1 * *", parsedUtc)))).doesNotThrowAnyException();
    }

    // ---- scale and absolute values

    @Test
    void aScaleTogetherWithAbsoluteValuesIsRejected() {
        rejects(() -> ScheduleEntry.of("* 9-17 * * *", NEW_YORK, 0.5, 100L, null, null))
                .hasMessageContaining("either scales the limit or sets absolute values, not both")
                .hasMessageContaining("drop the scale or the capacity and refill");
        rejects(() -> ScheduleEntry.of("* 9-17 * * *", NEW_YORK, 0.5, null, 10L, Duration.ofMinutes(1)))
                .hasMessageContaining("not both");
        rejects(() -> ScheduleEntry.of("* 9-17 * * *", NEW_YORK, null, null, null, null))
                .hasMessageContaining("needs a scale or an absolute capacity");
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.0, -0.0, -0.5, -1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void aScaleIsAFiniteNumberAboveZero(double scale) {
        ValidationException e = rejection(() -> ScheduleEntry.scaled("* 9-17 * * *", NEW_YORK, scale));
        assertThat(e.field()).isEqualTo("schedule entry '* 9-17 * * *' scale");
        assertThat(e).hasMessageContaining("a scale is a finite number greater than zero")
                .hasMessageContaining("small absolute capacity");
    }

    @Test
    void absoluteValuesAreChecked() {
        rejects(() -> ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 0)).hasMessageContaining("capacity")
                .hasMessageContaining("greater than zero");
        rejects(() -> ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 10, 0, Duration.ofMinutes(1)))
                .hasMessageContaining("refillAmount");
        rejects(() -> ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 10, 5, Duration.ZERO))
                .hasMessageContaining("at least one millisecond");
        rejects(() -> ScheduleEntry.of("* 9-17 * * *", NEW_YORK, null, 10L, 5L, null))
                .hasMessageContaining("give both a refill amount and a refill period, or neither");
    }

    // ---- drip or reset

    @Test
    void aLimitThatWouldBothDripAndResetIsRejected() {
        ValidationException e = rejection(() -> Limit.quota("daily", 10, "0 0 * * *", NEW_YORK)
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 20, 5, Duration.ofMinutes(1))));
        assertThat(e).hasMessageContaining("a quota does not drip");
        rejects(() -> Limit.sessionQuota("session", 10, Duration.ofHours(1))
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 20, 5, Duration.ofMinutes(1))))
                .hasMessageContaining("a quota does not drip");
        // capacity-only and scaled windows are fine on a quota
        assertThatCode(() -> Limit.quota("daily", 10, "0 0 * * *", NEW_YORK).withSchedule(
                ScheduleEntry.absolute("* * * * SAT,SUN", NEW_YORK, 20),
                ScheduleEntry.scaled("* 9-17 * * *", NEW_YORK, 0.5))).doesNotThrowAnyException();
    }

    @Test
    void aLimitThatCouldNeverRecoverIsRejected() {
        ValidationException e = rejection(() -> Limit.custom("jobs", 5, 0, Duration.ofMinutes(1)));
        assertThat(e.field()).isEqualTo("limit jobs refillAmount");
        assertThat(e).hasMessageContaining("a limit that only comes back at a reset is a quota (Limit.quota)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"* * * * *", "* 0-23 * * *", "*/1 * * 1-12 SUN-SAT"})
    void aQuotaOnACronThatMatchesEveryMinuteResetsAtEveryMinute(String cron) {
        Limit q = Limit.quota("q", 10, cron, NEW_YORK);
        assertThat(q.resetSchedule()).contains("* * * * *");
        long at = java.time.Instant.parse("2026-11-01T05:59:59.999Z").toEpochMilli();   // 01:59:59.999 EDT
        assertThat(Limits.nextResetAfter(q, at)).isEqualTo(at + 1);
        assertThat(Limits.nextResetAfter(q, at + 1)).as("and on through the fall-back overlap").isEqualTo(at + 60_001);
    }

    @Test
    void aQuotaWhoseCronStopsMatchingHasEdges() {
        assertThatCode(() -> Limit.quota("q", 10, "* * * * MON-FRI", NEW_YORK)).doesNotThrowAnyException();
        assertThatCode(() -> Limit.quota("q", 10, "0 0 29 2 *", NEW_YORK)).doesNotThrowAnyException();
    }

    @Test
    void quotaAmountsAndSessionLengthsAreChecked() {
        rejects(() -> Limit.quota("q", 0, "0 0 * * *", NEW_YORK)).hasMessageContaining("greater than zero");
        rejects(() -> Limit.sessionQuota("s", 0, Duration.ofHours(1))).hasMessageContaining("greater than zero");
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999))) {
            rejects(() -> Limit.sessionQuota("s", 10, bad)).as("%s", bad)
                    .hasMessageContaining("the session length must be at least one millisecond");
        }
        Limit session = Limit.sessionQuota("s", 10, Duration.ofHours(5));
        assertThat(session.isQuota()).isTrue();
        assertThat(session.refillAmount()).isZero();
        assertThat(session.resetAfter()).contains(Duration.ofHours(5));
        assertThat(session.zone()).isEmpty();
    }

    // ---- canonical form

    @Test
    void sundayWrittenZeroSevenOrSunInAListIsStoredIdentically() {
        ScheduleEntry zero = ScheduleEntry.scaled("* * * * 0,6", NEW_YORK, 2.0);
        ScheduleEntry seven = ScheduleEntry.scaled("* * * * 6,7", NEW_YORK, 2.0);
        ScheduleEntry sun = ScheduleEntry.scaled("* * * * sat,SUN", NEW_YORK, 2.0);
        assertThat(zero).isEqualTo(seven).isEqualTo(sun).hasSameHashCodeAs(sun);
        assertThat(zero.cron()).isEqualTo("* * * * SAT,SUN");
        assertThat(seven.toString()).isEqualTo(sun.toString());
        assertThat(Limit.perMinute("rpm", 1).withSchedule(zero))
                .isEqualTo(Limit.perMinute("rpm", 1).withSchedule(sun));
        assertThat(Limit.quota("weekly", 10, "0 0 * * 7", NEW_YORK))
                .isEqualTo(Limit.quota("weekly", 10, "0 0 * * SUN", NEW_YORK))
                .isEqualTo(Limit.quota("weekly", 10, "0 0 * * 0", NEW_YORK));
    }

    @Test
    void daysAndMonthsDisplayAsNames() {
        ScheduleEntry entry = ScheduleEntry.scaled("* 9-17 * * 1-5", NEW_YORK, 0.5);
        assertThat(entry.cron()).isEqualTo("* 9-17 * * MON-FRI");
        assertThat(entry).isEqualTo(ScheduleEntry.scaled("* 9-17 * * mon-fri", NEW_YORK, 0.5));
        assertThat(entry.toString()).isEqualTo("\"* 9-17 * * MON-FRI\" America/New_York -> scale 0.5");
        assertThat(ScheduleEntry.absolute("* 0-6 * * *", NEW_YORK, 2000, 100, Duration.ofMinutes(1)).toString())
                .isEqualTo("\"* 0-6 * * *\" America/New_York -> capacity 2000, 100 per PT1M");

        Limit limit = Limit.perMinute("rpm", 1000).withSchedule(entry);
        assertThat(limit.toString()).contains("\"* 9-17 * * MON-FRI\" America/New_York -> scale 0.5");
        Limit quota = Limit.quota("halfyear", 10, "0 0 1 1,7 *", NEW_YORK);
        assertThat(quota.resetSchedule()).contains("0 0 1 JAN,JUL *");
        assertThat(quota.toString()).isEqualTo("Limit[halfyear: 10 quota, resets \"0 0 1 JAN,JUL *\""
                + " America/New_York]");
    }
}
