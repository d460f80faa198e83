package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Availability;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Store contract: scheduled limits and quotas (SPEC.md §3.6–3.7, issue 3). Cron windows that change a limit while
 * the current minute matches; calendar quotas that hand the whole allowance back at each reset edge; session quotas
 * that start at each caller's first admitted request; retry-after that walks the schedule; one time zone per
 * configuration level. Everything runs on the {@link dev.zaelimiter.testing.MutableClock} and goes through
 * {@link dev.zaelimiter.RateLimiter} and {@link dev.zaelimiter.RateLimiterAdmin}, so every store runs it. The one
 * exception is {@link #resetsNeverTouchTheConsumptionCounter()}: the counter is not exposed by the limiter, so that
 * test reads it through {@link dev.zaelimiter.store.LimiterStore#peek}, which every store implements.
 *
 * <p>Expected instants are written in UTC, with the local time they stand for next to them. 2026 daylight saving:
 * New York springs forward on Sunday 8 March (02:00 EST → 03:00 EDT, UTC-5 → UTC-4) and falls back on Sunday
 * 1 November (02:00 EDT → 01:00 EST); Berlin springs forward on Sunday 29 March (02:00 CET → 03:00 CEST, UTC+1 →
 * UTC+2) and falls back on Sunday 25 October (03:00 CEST → 02:00 CET).
 */
public abstract class ScheduleContract extends StoreContractSupport {

    protected static final String RESOURCE = "gpt-4";
    protected static final String OTHER_RESOURCE = "claude";
    protected static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    protected static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    protected static final ZoneId UTC = ZoneOffset.UTC;

    // ---- helpers

    private void at(String instant) {
        clock.set(Instant.parse(instant));
    }

    private long available(String entityId, String limit) {
        return available(entityId, RESOURCE, limit);
    }

    private long available(String entityId, String resource, String limit) {
        Long value = limiter.available(entityId, resource).get(limit);
        assertThat(value).as("limit %s of %s on %s", limit, entityId, resource).isNotNull();
        return value;
    }

    /** The capacity in force for {@code limit} at {@code instant}, as the limiter reports it. */
    private long capacityAt(String instant, String resource, String limit) {
        at(instant);
        Availability availability = limiter.checkAvailability(AcquireRequest.of("probe", resource));
        return availability.statuses().stream().filter(s -> s.limitName().equals(limit)).findFirst()
                .orElseThrow(() -> new AssertionError("no status for " + limit)).capacity();
    }

    private long capacityAt(String instant, String limit) {
        return capacityAt(instant, RESOURCE, limit);
    }

    private void take(String entityId, String limit, long amount) {
        limiter.acquire(entityId, RESOURCE, consume(limit, amount)).close();
    }

    private static RateLimitExceededException exceeded(Executable call) {
        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class, call::execute);
        assertThat(e).as("expected RateLimitExceededException").isNotNull();
        return e;
    }

    /** The retry-after of a call for {@code amount} of {@code limit} that must be refused now. */
    private Duration refusedWith(String entityId, String limit, long amount) {
        RateLimitExceededException e = exceeded(() -> limiter.acquire(entityId, RESOURCE, consume(limit, amount)));
        assertThat(e.violations()).extracting(LimitStatus::limitName).containsExactly(limit);
        Availability availability = limiter.checkAvailability(entityId, RESOURCE, consume(limit, amount));
        assertThat(availability.allowed()).isFalse();
        assertThat(availability.retryAfter()).as("checkAvailability agrees with acquire").isEqualTo(e.retryAfter());
        return e.retryAfter();
    }

    private static Duration between(String from, String to) {
        return Duration.between(Instant.parse(from), Instant.parse(to));
    }

    // =================================================================================================================
    // Windows
    // =================================================================================================================

    @Test
    void aWindowIsInForceForEveryMinuteThatMatches() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * MON-FRI", NEW_YORK, 10))));
        // Monday 15 June 2026, EDT (UTC-4)
        assertThat(capacityAt("2026-06-15T12:59:59.999Z", "rpm")).as("08:59:59.999").isEqualTo(100);
        assertThat(capacityAt("2026-06-15T13:00:00Z", "rpm")).as("09:00").isEqualTo(10);
        assertThat(capacityAt("2026-06-15T17:30:00Z", "rpm")).as("13:30").isEqualTo(10);
        assertThat(capacityAt("2026-06-15T21:59:59.999Z", "rpm")).as("17:59:59.999, still hour 17").isEqualTo(10);
        assertThat(capacityAt("2026-06-15T22:00:00Z", "rpm")).as("18:00").isEqualTo(100);
        // Saturday 13 June: the day-of-week field does not match
        assertThat(capacityAt("2026-06-13T14:00:00Z", "rpm")).as("Saturday 10:00").isEqualTo(100);

        // what a caller can spend follows: a new bucket starts full at the capacity in force
        at("2026-06-15T14:00:00Z");
        assertThat(available("user-1", "rpm")).isEqualTo(10);
        take("user-1", "rpm", 10);
        refusedWith("user-1", "rpm", 1);
    }

    @Test
    void aPatternThatNamesOneMinuteIsAWindowOneMinuteLong() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("0 9 * * *", UTC, 10))));
        assertThat(capacityAt("2026-06-15T08:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-06-15T09:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-06-15T09:00:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-06-15T09:01:00Z", "rpm")).isEqualTo(100);
    }

    @Test
    void theFirstMatchingEntryWinsAndNoMatchMeansTheBase() {
        ScheduleEntry weekend = ScheduleEntry.absolute("* * * * SAT,SUN", NEW_YORK, 300);
        ScheduleEntry daytime = ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 50);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100).withSchedule(weekend, daytime)));
        admin.setResourceDefaults(OTHER_RESOURCE,
                List.of(Limit.perMinute("rpm", 100).withSchedule(daytime, weekend)));

        // Saturday 13 June 2026 10:00 EDT: both entries match; the first one listed decides, nothing merges
        assertThat(capacityAt("2026-06-13T14:00:00Z", RESOURCE, "rpm")).isEqualTo(300);
        assertThat(capacityAt("2026-06-13T14:00:00Z", OTHER_RESOURCE, "rpm")).isEqualTo(50);
        // Saturday 20:00 EDT: only the weekend entry matches
        assertThat(capacityAt("2026-06-14T00:00:00Z", RESOURCE, "rpm")).isEqualTo(300);
        assertThat(capacityAt("2026-06-14T00:00:00Z", OTHER_RESOURCE, "rpm")).isEqualTo(300);
        // Monday 15 June 10:00 EDT: only the daytime entry matches
        assertThat(capacityAt("2026-06-15T14:00:00Z", RESOURCE, "rpm")).isEqualTo(50);
        // Monday 20:00 EDT: nothing matches, the base applies
        assertThat(capacityAt("2026-06-16T00:00:00Z", RESOURCE, "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-06-16T00:00:00Z", OTHER_RESOURCE, "rpm")).isEqualTo(100);
        assertThat(available("user-1", "rpm")).isEqualTo(100);
    }

    @Test
    void aScaleMovesCapacityAndRefillTogether() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 60)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * *", UTC, 0.5))));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 60)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * *", UTC, 2.0))));

        at("2026-06-15T10:00:00Z");                     // inside: 30 capacity, 30 per minute
        assertThat(available("user-1", "rpm")).isEqualTo(30);
        take("user-1", "rpm", 30);
        clock.advance(Duration.ofSeconds(10));
        assertThat(available("user-1", "rpm")).as("half a token per second").isEqualTo(5);
        take("user-1", "rpm", 5);
        assertThat(refusedWith("user-1", "rpm", 1)).isEqualTo(Duration.ofSeconds(2));
        // the time to refill from empty is unchanged: 30 tokens in a minute
        clock.advance(Duration.ofMinutes(1));
        assertThat(available("user-1", "rpm")).isEqualTo(30);

        at("2026-06-15T10:00:00Z");                     // scale 2: 120 capacity, 120 per minute
        assertThat(available("user-1", OTHER_RESOURCE, "rpm")).isEqualTo(120);
        limiter.acquire("user-1", OTHER_RESOURCE, consume("rpm", 120)).close();
        clock.advance(Duration.ofSeconds(10));
        assertThat(available("user-1", OTHER_RESOURCE, "rpm")).isEqualTo(20);

        at("2026-06-15T20:00:00Z");                     // outside: the base, 60 and one per second
        assertThat(available("user-2", "rpm")).isEqualTo(60);
        take("user-2", "rpm", 60);
        clock.advance(Duration.ofSeconds(10));
        assertThat(available("user-2", "rpm")).isEqualTo(10);
        take("user-2", "rpm", 10);
        assertThat(refusedWith("user-2", "rpm", 1)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void anAbsoluteEntryWithACapacityOnlyKeepsTheBaseRefill() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 60)
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", UTC, 500))));
        at("2026-06-15T10:00:00Z");
        assertThat(available("user-1", "rpm")).isEqualTo(500);
        take("user-1", "rpm", 500);
        clock.advance(Duration.ofSeconds(10));
        assertThat(available("user-1", "rpm")).as("the base rate, one per second").isEqualTo(10);
        assertThat(refusedWith("user-1", "rpm", 15)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void anAbsoluteEntryWithItsOwnRefill() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 60)
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", UTC, 500, 100, Duration.ofSeconds(10)))));
        at("2026-06-15T10:00:00Z");
        take("user-1", "rpm", 500);
        clock.advance(Duration.ofSeconds(1));
        assertThat(available("user-1", "rpm")).as("100 per 10 s").isEqualTo(10);
        assertThat(refusedWith("user-1", "rpm", 200)).isEqualTo(Duration.ofSeconds(19));
        clock.advance(Duration.ofSeconds(9));
        assertThat(available("user-1", "rpm")).isEqualTo(100);
    }

    @Test
    void entriesDefaultToUtc() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * *", 0.1))));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.of("* 9-17 * * *", null, 0.1, null, null, null))));
        for (String resource : List.of(RESOURCE, OTHER_RESOURCE)) {
            assertThat(capacityAt("2026-06-15T08:59:59.999Z", resource, "rpm")).isEqualTo(100);
            assertThat(capacityAt("2026-06-15T09:00:00Z", resource, "rpm")).isEqualTo(10);
            assertThat(capacityAt("2026-06-15T17:59:59.999Z", resource, "rpm")).isEqualTo(10);
            assertThat(capacityAt("2026-06-15T18:00:00Z", resource, "rpm")).isEqualTo(100);
        }
        assertThat(admin.getResourceDefaults(RESOURCE).get(0).zone())
                .hasValueSatisfying(zone -> assertThat(zone.normalized()).isEqualTo(ZoneOffset.UTC));
    }

    @Test
    void aWindowChangeGivesTheBucketTheNewCapacityAndRefillAndClipsTheBalance() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * *", UTC, 0.1))));
        at("2026-06-15T08:58:00Z");
        take("user-1", "rpm", 5);
        assertThat(available("user-1", "rpm")).isEqualTo(95);

        at("2026-06-15T09:00:00Z");                     // the window opens: 95 does not fit in 10
        assertThat(available("user-1", "rpm")).isEqualTo(10);
        take("user-1", "rpm", 10);
        refusedWith("user-1", "rpm", 1);
        clock.advance(Duration.ofSeconds(30));
        assertThat(available("user-1", "rpm")).as("the window's refill, 10 per minute").isEqualTo(5);

        at("2026-06-15T17:59:00Z");
        take("user-1", "rpm", 10);
        at("2026-06-15T18:10:00Z");                     // the window has closed: the base capacity again
        assertThat(capacityAt("2026-06-15T18:10:00Z", "rpm")).isEqualTo(100);
        assertThat(available("user-1", "rpm")).isEqualTo(100);
        take("user-1", "rpm", 100);
        clock.advance(Duration.ofSeconds(30));
        assertThat(available("user-1", "rpm")).as("the base refill, 100 per minute").isEqualTo(50);
    }

    @Test
    void aBalanceAboveTheCapacityOfTheNextWindowIsClippedWhenALargerWindowCloses() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* * * * SAT,SUN", UTC, 300))));
        at("2026-06-14T23:59:00Z");                     // Sunday
        assertThat(available("user-1", "rpm")).isEqualTo(300);
        take("user-1", "rpm", 1);
        assertThat(available("user-1", "rpm")).isEqualTo(299);
        at("2026-06-15T00:00:00Z");                     // Monday
        assertThat(available("user-1", "rpm")).isEqualTo(100);
        take("user-1", "rpm", 100);
        refusedWith("user-1", "rpm", 1);
    }

    // ---- time zones and daylight saving

    @Test
    void aNewYorkWindowStaysNineToFiveLocalAcrossSpringForward() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 10))));
        // Saturday 7 March, EST (UTC-5): 09:00 is 14:00Z, 18:00 is 23:00Z
        assertThat(capacityAt("2026-03-07T13:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-03-07T14:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-07T22:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-07T23:00:00Z", "rpm")).isEqualTo(100);
        // Sunday 8 March, the change day, EDT by 09:00 (UTC-4): 09:00 is 13:00Z, 18:00 is 22:00Z
        assertThat(capacityAt("2026-03-08T12:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-03-08T13:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-08T21:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-08T22:00:00Z", "rpm")).isEqualTo(100);
        // Monday 9 March, EDT: 13:30Z is 09:30 local now (it was 08:30 on Saturday)
        assertThat(capacityAt("2026-03-07T13:30:00Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-03-09T13:30:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-09T22:30:00Z", "rpm")).isEqualTo(100);
    }

    @Test
    void aNewYorkWindowStaysNineToFiveLocalAcrossFallBack() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", NEW_YORK, 10))));
        // Saturday 31 October, EDT (UTC-4)
        assertThat(capacityAt("2026-10-31T12:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-10-31T13:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-10-31T21:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-10-31T22:00:00Z", "rpm")).isEqualTo(100);
        // Sunday 1 November, the change day, EST after 02:00 (UTC-5)
        assertThat(capacityAt("2026-11-01T13:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-11-01T14:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-11-01T22:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-11-01T23:00:00Z", "rpm")).isEqualTo(100);
        // Monday 2 November: 13:30Z is 08:30 local now (it was 09:30 on Saturday)
        assertThat(capacityAt("2026-10-31T13:30:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-11-02T13:30:00Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-11-02T22:30:00Z", "rpm")).isEqualTo(10);
    }

    @Test
    void aBerlinWindowStaysNineToFiveLocalAcrossBothChanges() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", BERLIN, 10))));
        // Saturday 28 March, CET (UTC+1): 09:00 is 08:00Z, 18:00 is 17:00Z
        assertThat(capacityAt("2026-03-28T07:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-03-28T08:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-28T16:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-28T17:00:00Z", "rpm")).isEqualTo(100);
        // Sunday 29 March, CEST by 09:00 (UTC+2): 09:00 is 07:00Z, 18:00 is 16:00Z
        assertThat(capacityAt("2026-03-29T06:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-03-29T07:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-29T15:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-03-29T16:00:00Z", "rpm")).isEqualTo(100);
        // Saturday 24 October, CEST
        assertThat(capacityAt("2026-10-24T06:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-10-24T07:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-10-24T15:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-10-24T16:00:00Z", "rpm")).isEqualTo(100);
        // Sunday 25 October, CET after 03:00 CEST
        assertThat(capacityAt("2026-10-25T07:59:59.999Z", "rpm")).isEqualTo(100);
        assertThat(capacityAt("2026-10-25T08:00:00Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-10-25T16:59:59.999Z", "rpm")).isEqualTo(10);
        assertThat(capacityAt("2026-10-25T17:00:00Z", "rpm")).isEqualTo(100);
    }

    @Test
    void windowsOnTheShortAndTheLongDayFollowLocalTime() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 1 * * *", NEW_YORK, 10))));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 2 * * *", NEW_YORK, 10))));
        // 1 November: hour 1 happens twice, 01:00 EDT (05:00Z) to 02:00 EST (07:00Z): two real hours
        assertThat(capacityAt("2026-11-01T04:59:59.999Z", "rpm")).as("00:59:59 EDT").isEqualTo(100);
        assertThat(capacityAt("2026-11-01T05:00:00Z", "rpm")).as("01:00 EDT").isEqualTo(10);
        assertThat(capacityAt("2026-11-01T06:30:00Z", "rpm")).as("01:30 EST").isEqualTo(10);
        assertThat(capacityAt("2026-11-01T06:59:59.999Z", "rpm")).as("01:59:59 EST").isEqualTo(10);
        assertThat(capacityAt("2026-11-01T07:00:00Z", "rpm")).as("02:00 EST").isEqualTo(100);
        // 8 March: hour 2 does not exist, so a window of hour 2 does not open that day
        assertThat(capacityAt("2026-03-08T06:59:59.999Z", OTHER_RESOURCE, "rpm")).as("01:59:59 EST")
                .isEqualTo(100);
        assertThat(capacityAt("2026-03-08T07:00:00Z", OTHER_RESOURCE, "rpm")).as("03:00 EDT").isEqualTo(100);
        assertThat(capacityAt("2026-03-09T06:30:00Z", OTHER_RESOURCE, "rpm")).as("02:30 EDT the next day")
                .isEqualTo(10);
    }

    // =================================================================================================================
    // Calendar quotas
    // =================================================================================================================

    @Test
    void aQuotaHandsTheWholeAllowanceBackAtEachEdgeAndNothingInBetween() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 10, "0 0 * * *", NEW_YORK)));
        at("2026-06-15T14:00:00Z");                     // Monday 10:00 EDT
        take("user-1", "daily", 4);
        take("user-1", "daily", 6);
        assertThat(available("user-1", "daily")).isZero();
        assertThat(refusedWith("user-1", "daily", 1)).isEqualTo(Duration.ofHours(14));

        at("2026-06-16T03:59:59.999Z");                 // 23:59:59.999 EDT: no drip in almost 14 hours
        assertThat(available("user-1", "daily")).isZero();
        assertThat(refusedWith("user-1", "daily", 1)).isEqualTo(Duration.ofMillis(1));

        at("2026-06-16T04:00:00Z");                     // local midnight
        assertThat(available("user-1", "daily")).isEqualTo(10);
        take("user-1", "daily", 3);

        at("2026-06-17T03:59:00Z");
        assertThat(available("user-1", "daily")).isEqualTo(7);
        at("2026-06-17T04:00:00Z");                     // back to the allowance, not 7 + 10
        assertThat(available("user-1", "daily")).isEqualTo(10);
    }

    @Test
    void aMonthlyQuotaResetsAtMidnightOnTheFirstInItsZone() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("monthly", 1000, "0 0 1 * *", NEW_YORK)));
        at("2026-06-15T14:00:00Z");
        take("user-1", "monthly", 1000);
        assertThat(refusedWith("user-1", "monthly", 1))
                .isEqualTo(between("2026-06-15T14:00:00Z", "2026-07-01T04:00:00Z"))
                .isEqualTo(Duration.ofDays(15).plusHours(14));
        at("2026-07-01T03:59:59.999Z");                 // 30 June 23:59:59.999 EDT
        assertThat(available("user-1", "monthly")).isZero();
        at("2026-07-01T04:00:00Z");
        assertThat(available("user-1", "monthly")).isEqualTo(1000);
    }

    @Test
    void anIdleBucketResetsOnceOnItsNextRequestHoweverManyEdgesItMissed() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 10, "0 0 * * *", UTC)));
        at("2026-06-15T10:00:00Z");
        try (Lease lease = limiter.acquire("user-1", RESOURCE, consume("daily", 10))) {
            lease.adjust("daily", 5);                   // into debt
        }
        assertThat(available("user-1", "daily")).isEqualTo(-5);

        at("2026-06-20T10:00:00Z");                     // five edges later (16th to 20th)
        assertThat(available("user-1", "daily")).as("the allowance, once: no credit for missed edges")
                .isEqualTo(10);
        take("user-1", "daily", 10);
        assertThat(refusedWith("user-1", "daily", 1)).isEqualTo(Duration.ofHours(14));
        at("2026-06-20T23:59:59.999Z");                 // the missed edges left nothing to reset later
        assertThat(available("user-1", "daily")).isZero();
        at("2026-06-21T00:00:00Z");
        assertThat(available("user-1", "daily")).isEqualTo(10);
    }

    @Test
    void anEdgeInTheSpringForwardGapFiresOnceWhenTheGapEnds() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("q", 10, "30 2 * * *", NEW_YORK)));
        at("2026-03-07T17:00:00Z");                     // Saturday 12:00 EST, after that day's 02:30
        take("user-1", "q", 10);
        at("2026-03-08T06:00:00Z");                     // Sunday 01:00 EST; 02:30 does not exist today
        assertThat(refusedWith("user-1", "q", 1)).as("until 03:00 EDT, where the gap ends")
                .isEqualTo(Duration.ofHours(1));
        at("2026-03-08T06:59:59.999Z");
        assertThat(available("user-1", "q")).isZero();
        at("2026-03-08T07:00:00Z");                     // 03:00 EDT
        assertThat(available("user-1", "q")).isEqualTo(10);
        take("user-1", "q", 10);
        at("2026-03-08T07:30:00Z");                     // what 02:30 EST would have been: no second reset
        assertThat(available("user-1", "q")).isZero();
        assertThat(refusedWith("user-1", "q", 1)).as("until Monday 02:30 EDT")
                .isEqualTo(between("2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"))
                .isEqualTo(Duration.ofHours(23));
        at("2026-03-09T06:29:59.999Z");
        assertThat(available("user-1", "q")).isZero();
        at("2026-03-09T06:30:00Z");
        assertThat(available("user-1", "q")).isEqualTo(10);
    }

    @Test
    void anEdgeInTheBerlinSpringForwardGapFiresOnceWhenTheGapEnds() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("q", 10, "30 2 * * *", BERLIN)));
        at("2026-03-28T12:00:00Z");
        take("user-1", "q", 10);
        at("2026-03-29T00:30:00Z");                     // 01:30 CET; the gap is 02:00-03:00
        assertThat(refusedWith("user-1", "q", 1)).isEqualTo(Duration.ofMinutes(30));
        at("2026-03-29T01:00:00Z");                     // 03:00 CEST
        assertThat(available("user-1", "q")).isEqualTo(10);
        take("user-1", "q", 10);
        at("2026-03-29T01:30:00Z");                     // what 02:30 CET would have been
        assertThat(available("user-1", "q")).isZero();
        assertThat(refusedWith("user-1", "q", 1)).as("until Monday 02:30 CEST (00:30Z)")
                .isEqualTo(Duration.ofHours(23));
    }

    @Test
    void anEdgeInTheFallBackOverlapFiresOnlyTheFirstTime() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("q", 10, "30 1 * * *", NEW_YORK)));
        at("2026-10-31T16:00:00Z");                     // Saturday 12:00 EDT
        take("user-1", "q", 10);
        at("2026-11-01T05:00:00Z");                     // Sunday 01:00 EDT
        assertThat(refusedWith("user-1", "q", 1)).isEqualTo(Duration.ofMinutes(30));
        at("2026-11-01T05:30:00Z");                     // 01:30 EDT, the first 01:30
        assertThat(available("user-1", "q")).isEqualTo(10);
        take("user-1", "q", 10);
        at("2026-11-01T06:30:00Z");                     // 01:30 EST, the second 01:30: no reset
        assertThat(available("user-1", "q")).isZero();
        assertThat(refusedWith("user-1", "q", 1)).as("until Monday 01:30 EST")
                .isEqualTo(Duration.ofHours(24));
        at("2026-11-02T06:29:59.999Z");
        assertThat(available("user-1", "q")).isZero();
        at("2026-11-02T06:30:00Z");
        assertThat(available("user-1", "q")).isEqualTo(10);
    }

    @Test
    void anEdgeInTheBerlinFallBackOverlapFiresOnlyTheFirstTime() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("q", 10, "30 2 * * *", BERLIN)));
        at("2026-10-24T12:00:00Z");
        take("user-1", "q", 10);
        at("2026-10-25T00:30:00Z");                     // 02:30 CEST, the first 02:30
        assertThat(available("user-1", "q")).isEqualTo(10);
        take("user-1", "q", 10);
        at("2026-10-25T01:30:00Z");                     // 02:30 CET, the second
        assertThat(available("user-1", "q")).isZero();
        assertThat(refusedWith("user-1", "q", 1)).as("until Monday 02:30 CET (01:30Z)")
                .isEqualTo(Duration.ofHours(24));
    }

    @Test
    void monthlyQuotasAcrossMonthEnds() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("monthly", 100, "0 0 1 * *", UTC)));
        at("2026-01-31T12:00:00Z");
        take("user-1", "monthly", 100);
        assertThat(refusedWith("user-1", "monthly", 1)).isEqualTo(Duration.ofHours(12));
        at("2026-01-31T23:59:59.999Z");
        assertThat(available("user-1", "monthly")).isZero();
        at("2026-02-01T00:00:00Z");
        assertThat(available("user-1", "monthly")).isEqualTo(100);
        take("user-1", "monthly", 100);
        assertThat(refusedWith("user-1", "monthly", 1)).as("February 2026 has 28 days")
                .isEqualTo(Duration.ofDays(28));
        at("2026-02-28T23:59:59.999Z");
        assertThat(available("user-1", "monthly")).isZero();
        at("2026-03-01T00:00:00Z");
        assertThat(available("user-1", "monthly")).isEqualTo(100);
        at("2026-04-30T12:00:00Z");
        take("user-1", "monthly", 100);
        assertThat(refusedWith("user-1", "monthly", 1)).isEqualTo(Duration.ofHours(12));
        at("2026-05-01T00:00:00Z");
        assertThat(available("user-1", "monthly")).isEqualTo(100);
    }

    @Test
    void aQuotaOnThe31stSkipsShorterMonths() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("q31", 5, "0 0 31 * *", UTC)));
        at("2026-01-31T12:00:00Z");
        take("user-1", "q31", 5);
        assertThat(refusedWith("user-1", "q31", 1)).as("until 31 March; February has no 31st")
                .isEqualTo(Duration.ofDays(58).plusHours(12));
        at("2026-03-01T00:00:00Z");
        assertThat(available("user-1", "q31")).isZero();
        at("2026-03-31T00:00:00Z");
        assertThat(available("user-1", "q31")).isEqualTo(5);
        take("user-1", "q31", 5);
        assertThat(refusedWith("user-1", "q31", 1)).as("until 31 May; April has no 31st")
                .isEqualTo(Duration.ofDays(61));
    }

    @Test
    void theTwentyNinthOfFebruary2028() {
        admin.setResourceDefaults(RESOURCE, List.of(
                Limit.quota("monthly", 100, "0 0 1 * *", UTC),
                Limit.quota("daily", 10, "0 0 * * *", UTC),
                Limit.quota("leap", 5, "0 0 29 2 *", UTC)));
        at("2028-02-28T00:00:00Z");
        limiter.acquire("user-1", RESOURCE, Map.of("monthly", 100L, "daily", 10L, "leap", 5L)).close();
        assertThat(refusedWith("user-1", "monthly", 1)).as("28 and 29 February").isEqualTo(Duration.ofDays(2));
        assertThat(refusedWith("user-1", "daily", 1)).isEqualTo(Duration.ofDays(1));
        assertThat(refusedWith("user-1", "leap", 1)).isEqualTo(Duration.ofDays(1));

        at("2028-02-29T00:00:00Z");
        assertThat(limiter.available("user-1", RESOURCE))
                .isEqualTo(Map.of("monthly", 0L, "daily", 10L, "leap", 5L));
        limiter.acquire("user-1", RESOURCE, Map.of("daily", 10L, "leap", 5L)).close();
        assertThat(refusedWith("user-1", "leap", 1)).as("the next 29 February is in 2032")
                .isEqualTo(between("2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"))
                .isEqualTo(Duration.ofDays(1461));

        at("2028-02-29T23:59:59.999Z");
        assertThat(limiter.available("user-1", RESOURCE))
                .isEqualTo(Map.of("monthly", 0L, "daily", 0L, "leap", 0L));
        at("2028-03-01T00:00:00Z");
        assertThat(limiter.available("user-1", RESOURCE))
                .isEqualTo(Map.of("monthly", 100L, "daily", 10L, "leap", 0L));
    }

    @Test
    void theThirtyFirstOfDecemberToTheFirstOfJanuary() {
        admin.setResourceDefaults(RESOURCE, List.of(
                Limit.quota("monthly", 100, "0 0 1 * *", NEW_YORK),
                Limit.quota("daily", 10, "0 0 * * *", NEW_YORK)));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.quota("yearly", 1000, "0 0 1 1 *", UTC)));

        at("2026-12-31T17:00:00Z");                     // 31 December 12:00 EST
        limiter.acquire("user-1", RESOURCE, Map.of("monthly", 100L, "daily", 10L)).close();
        assertThat(refusedWith("user-1", "monthly", 1)).isEqualTo(Duration.ofHours(12));
        assertThat(refusedWith("user-1", "daily", 1)).isEqualTo(Duration.ofHours(12));
        at("2027-01-01T04:59:59.999Z");                 // 23:59:59.999 EST
        assertThat(limiter.available("user-1", RESOURCE)).isEqualTo(Map.of("monthly", 0L, "daily", 0L));
        at("2027-01-01T05:00:00Z");                     // New Year's midnight in New York
        assertThat(limiter.available("user-1", RESOURCE)).isEqualTo(Map.of("monthly", 100L, "daily", 10L));

        at("2026-12-31T23:00:00Z");
        limiter.acquire("user-1", OTHER_RESOURCE, consume("yearly", 1000)).close();
        RateLimitExceededException e = exceeded(
                () -> limiter.acquire("user-1", OTHER_RESOURCE, consume("yearly", 1)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofHours(1));
        at("2027-01-01T00:00:00Z");
        assertThat(available("user-1", OTHER_RESOURCE, "yearly")).isEqualTo(1000);
        limiter.acquire("user-1", OTHER_RESOURCE, consume("yearly", 1000)).close();
        e = exceeded(() -> limiter.acquire("user-1", OTHER_RESOURCE, consume("yearly", 1)));
        assertThat(e.retryAfter()).as("2027 has 365 days").isEqualTo(Duration.ofDays(365));
    }

    @Test
    void correctionsAfterAResetApplyToTheNewPeriodAndNeverLiftItAboveTheAllowance() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 10, "0 0 * * *", UTC)));
        at("2026-06-15T20:00:00Z");
        Lease early = limiter.acquire("user-1", RESOURCE, consume("daily", 6));
        Lease late = limiter.acquire("user-1", RESOURCE, consume("daily", 2));
        assertThat(available("user-1", "daily")).isEqualTo(2);

        at("2026-06-16T00:00:00Z");
        assertThat(available("user-1", "daily")).isEqualTo(10);
        early.rollback();                               // a refund of the old period: capped at the allowance
        assertThat(available("user-1", "daily")).isEqualTo(10);
        late.adjust("daily", 3);                        // a late correction is charged now
        late.close();
        assertThat(available("user-1", "daily")).isEqualTo(7);
    }

    /**
     * The total-consumed counter is not exposed by {@code RateLimiter} or {@code RateLimiterAdmin}; it is read here
     * through {@link dev.zaelimiter.store.LimiterStore#peek}, the store operation every store implements.
     */
    @Test
    void resetsNeverTouchTheConsumptionCounter() {
        List<Limit> limits = List.of(Limit.quota("daily", 10, "0 0 * * *", UTC),
                Limit.quota("soft", 10, "0 0 * * *", UTC).soft(),
                Limit.sessionQuota("session", 10, Duration.ofHours(1)));
        admin.setResourceDefaults(RESOURCE, limits);
        at("2026-06-15T22:00:00Z");
        limiter.acquire("user-1", RESOURCE, Map.of("daily", 6L, "soft", 25L, "session", 7L)).close();
        limiter.acquire("user-1", RESOURCE, Map.of("daily", 4L)).close();
        assertThat(consumed(limits)).isEqualTo(Map.of("daily", 10L, "soft", 25L, "session", 7L));

        at("2026-06-16T00:30:00Z");                     // after the daily edge and the end of the session
        assertThat(limiter.available("user-1", RESOURCE))
                .isEqualTo(Map.of("daily", 10L, "soft", 10L, "session", 10L));
        assertThat(consumed(limits)).isEqualTo(Map.of("daily", 10L, "soft", 25L, "session", 7L));
        limiter.acquire("user-1", RESOURCE, Map.of("daily", 3L, "soft", 1L, "session", 2L)).close();
        assertThat(consumed(limits)).isEqualTo(Map.of("daily", 13L, "soft", 26L, "session", 9L));
    }

    private Map<String, Long> consumed(List<Limit> limits) {
        BucketDebit peek = new BucketDebit(new BucketKey("user-1", RESOURCE), limits, Map.of(), false, true);
        Map<String, LimitState> states = store.peek(List.of(peek), clock.millis()).get(0).state().limits();
        return Map.of("daily", states.get("daily").consumedMilli() / LimitState.MILLI,
                "soft", states.get("soft").consumedMilli() / LimitState.MILLI,
                "session", states.get("session").consumedMilli() / LimitState.MILLI);
    }

    @Test
    void aSoftQuotasDebtIsForgivenAtTheReset() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 10, "0 0 * * *", UTC).soft()));
        at("2026-06-15T10:00:00Z");
        try (Lease lease = limiter.acquire("user-1", RESOURCE, consume("daily", 25))) {
            assertThat(lease.overdrawn()).containsExactly("daily");
        }
        assertThat(available("user-1", "daily")).isEqualTo(-15);
        at("2026-06-15T23:59:59.999Z");
        assertThat(available("user-1", "daily")).as("no drip pays the debt back").isEqualTo(-15);
        at("2026-06-16T00:00:00Z");
        assertThat(available("user-1", "daily")).isEqualTo(10);
    }

    // =================================================================================================================
    // Session quotas
    // =================================================================================================================

    @Test
    void aSessionStartsAtEachCallersFirstAdmittedRequest() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("session", 5, Duration.ofHours(5))));
        at("2026-06-15T09:00:00Z");
        assertThat(available("alice", "session")).as("looking starts nothing").isEqualTo(5);
        assertThat(limiter.checkAvailability("alice", RESOURCE, consume("session", 5)).allowed()).isTrue();

        at("2026-06-15T10:00:00Z");                     // alice's session: 10:00 to 15:00
        take("alice", "session", 2);
        at("2026-06-15T12:00:00Z");                     // bob's session: 12:00 to 17:00
        take("bob", "session", 5);
        take("alice", "session", 3);
        assertThat(refusedWith("alice", "session", 1)).isEqualTo(Duration.ofHours(3));
        assertThat(refusedWith("bob", "session", 1)).isEqualTo(Duration.ofHours(5));

        at("2026-06-15T14:59:59.999Z");
        assertThat(available("alice", "session")).isZero();
        at("2026-06-15T15:00:00Z");
        assertThat(available("alice", "session")).isEqualTo(5);
        assertThat(available("bob", "session")).isZero();
        assertThat(refusedWith("bob", "session", 1)).isEqualTo(Duration.ofHours(2));
        at("2026-06-15T16:59:59.999Z");
        assertThat(available("bob", "session")).isZero();
        at("2026-06-15T17:00:00Z");
        assertThat(available("bob", "session")).isEqualTo(5);

        // alice's next session starts with her next admitted request, not when the last one ended
        at("2026-06-15T18:00:00Z");
        take("alice", "session", 1);
        at("2026-06-15T22:59:59.999Z");
        assertThat(available("alice", "session")).isEqualTo(4);
        assertThat(refusedWith("alice", "session", 5)).isEqualTo(Duration.ofMillis(1));
        at("2026-06-15T23:00:00Z");
        assertThat(available("alice", "session")).isEqualTo(5);
    }

    @Test
    void aRolledBackOpeningCallLeavesNoSessionBehind() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("session", 5, Duration.ofHours(5))));
        at("2026-06-15T10:00:00Z");
        limiter.acquire("erin", RESOURCE, consume("session", 2)).rollback();
        at("2026-06-15T12:00:00Z");                     // the first call that stays: 12:00 to 17:00
        take("erin", "session", 5);
        at("2026-06-15T15:00:00Z");                     // a session anchored at 10:00 would have ended here
        assertThat(available("erin", "session")).isZero();
        assertThat(refusedWith("erin", "session", 1)).isEqualTo(Duration.ofHours(2));
        at("2026-06-15T17:00:00Z");
        assertThat(available("erin", "session")).isEqualTo(5);

        // a rollback that leaves some of the session's consumption keeps its start
        at("2026-06-15T18:00:00Z");                     // 18:00 to 23:00
        Lease opening = limiter.acquire("erin", RESOURCE, consume("session", 1));
        at("2026-06-15T19:00:00Z");
        limiter.acquire("erin", RESOURCE, consume("session", 2)).rollback();
        at("2026-06-15T22:59:59.999Z");
        assertThat(available("erin", "session")).isEqualTo(4);
        assertThat(refusedWith("erin", "session", 5)).isEqualTo(Duration.ofMillis(1));

        // giving back all of it, in any order, ends the session; the next call starts a new one
        opening.rollback();
        at("2026-06-15T23:30:00Z");                     // 23:30 to 04:30
        take("erin", "session", 5);
        at("2026-06-16T04:29:59.999Z");
        assertThat(refusedWith("erin", "session", 1)).isEqualTo(Duration.ofMillis(1));
        at("2026-06-16T04:30:00Z");
        assertThat(available("erin", "session")).isEqualTo(5);
    }

    @Test
    void aSessionWhoseConsumptionIsAdjustedBackToNothingEndsAndTheNextTakeStartsOne() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("session", 5, Duration.ofHours(5))));
        at("2026-06-15T10:00:00Z");
        Lease lease = limiter.acquire("frank", RESOURCE, consume("session", 3));
        lease.adjust("session", -3);                    // nothing of the session is left
        at("2026-06-15T11:00:00Z");
        lease.adjust("session", 5);                     // takes again: a session from 11:00 to 16:00
        lease.close();
        at("2026-06-15T15:00:00Z");
        assertThat(available("frank", "session")).isZero();
        assertThat(refusedWith("frank", "session", 1)).isEqualTo(Duration.ofHours(1));
        at("2026-06-15T16:00:00Z");
        assertThat(available("frank", "session")).isEqualTo(5);
    }

    @Test
    void neitherAZeroAmountNorARefusedCallStartsASession() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("session", 5, Duration.ofHours(5)),
                Limit.perHour("rph", 1)));
        at("2026-06-15T10:00:00Z");
        limiter.acquire("dave", RESOURCE, consume("session", 0, "rph", 1)).close();
        at("2026-06-15T10:30:00Z");
        exceeded(() -> limiter.acquire("dave", RESOURCE, consume("session", 1, "rph", 1)));
        at("2026-06-15T11:00:00Z");                     // the first admitted request: 11:00 to 16:00
        limiter.acquire("dave", RESOURCE, consume("session", 5, "rph", 1)).close();
        at("2026-06-15T15:00:30Z");                     // after 10:00 + 5 h and 10:30 + 5 h
        assertThat(available("dave", "session")).isZero();
        assertThat(refusedWith("dave", "session", 1)).isEqualTo(Duration.ofSeconds(3570));
        at("2026-06-15T16:00:00Z");
        assertThat(available("dave", "session")).isEqualTo(5);
    }

    // =================================================================================================================
    // Retry-after that walks the schedule
    // =================================================================================================================

    @Test
    void aDailyNewYorkQuotaExhaustedAtSixInTheEveningWaitsSixHours() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 10, "0 0 * * *", NEW_YORK)));
        // 18:00 local on: a summer day (EDT), a winter day (EST), the eves of both changes, a change day itself
        for (String sixPm : List.of("2026-06-15T22:00:00Z", "2026-01-15T23:00:00Z", "2026-03-07T23:00:00Z",
                "2026-10-31T22:00:00Z", "2026-11-01T23:00:00Z", "2026-03-08T22:00:00Z")) {
            at(sixPm);
            String user = "user-" + sixPm;
            take(user, "daily", 10);
            assertThat(refusedWith(user, "daily", 1)).as("at %s", sixPm).isEqualTo(Duration.ofHours(6));
            clock.advance(Duration.ofHours(6));
            assertThat(available(user, "daily")).as("at %s + 6 h", sixPm).isEqualTo(10);
        }
    }

    @Test
    void aQuotaWaitCountsTheRealLengthOfTheShortAndTheLongNight() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 10, "0 3 * * *", NEW_YORK)));
        at("2026-11-01T00:00:00Z");                     // Saturday 20:00 EDT; 03:00 EST is 08:00Z
        take("user-1", "daily", 10);
        assertThat(refusedWith("user-1", "daily", 1)).isEqualTo(Duration.ofHours(8));
        at("2026-03-08T01:00:00Z");                     // Saturday 20:00 EST; 03:00 EDT is 07:00Z
        take("user-2", "daily", 10);
        assertThat(refusedWith("user-2", "daily", 1)).isEqualTo(Duration.ofHours(6));
    }

    @Test
    void aLimitThatRisesInTenMinutesNeverReportsALongerWait() {
        // a maintenance window 02:00-04:00 UTC: 5 tokens, one back per hour; 100 per minute outside it
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 2-3 * * *", UTC, 5, 1, Duration.ofHours(1)))));
        at("2026-06-15T03:50:00Z");
        take("user-1", "rpm", 5);
        for (long amount = 1; amount <= 5; amount++) {
            assertThat(refusedWith("user-1", "rpm", amount)).as("%s tokens", amount)
                    .isEqualTo(Duration.ofMinutes(10));
        }
        at("2026-06-15T03:55:00Z");
        assertThat(refusedWith("user-1", "rpm", 5)).isEqualTo(Duration.ofMinutes(5));
        at("2026-06-15T03:59:59Z");
        assertThat(refusedWith("user-1", "rpm", 5)).isEqualTo(Duration.ofSeconds(1));
        at("2026-06-15T04:00:03Z");                     // the base rate: 5 tokens in 3 s even from empty
        take("user-1", "rpm", 5);
    }

    @Test
    void aWindowThatLowersTheRateBeforeTheRefillEndsIsWalkedToTheRealAdmission() {
        // one token a minute, capacity 60; from 10:10 to 11:00 half of both: capacity 30, a token every two minutes
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perHour("rph", 60)
                .withSchedule(ScheduleEntry.scaled("10-59 10 * * *", UTC, 0.5))));
        at("2026-06-15T10:00:00Z");
        take("user-1", "rph", 60);
        // the base rate would need 25 minutes, but from 10:10 the window's rate counts for all the time since 10:00
        assertThat(refusedWith("user-1", "rph", 25)).isEqualTo(Duration.ofMinutes(50));
        at("2026-06-15T10:05:00Z");                     // 5 tokens now, but only 2.5 once the window opens
        assertThat(refusedWith("user-1", "rph", 25)).isEqualTo(Duration.ofMinutes(45));
        at("2026-06-15T10:10:00Z");
        assertThat(refusedWith("user-1", "rph", 25)).isEqualTo(Duration.ofMinutes(40));
        at("2026-06-15T10:49:59.999Z");
        assertThat(refusedWith("user-1", "rph", 25)).isEqualTo(Duration.ofMillis(1));
        at("2026-06-15T10:50:00Z");
        take("user-1", "rph", 25);
    }

    @Test
    void aQuotaWhoseResetFallsInAWindowThatLowersItWaitsForTheWindowToEnd() {
        // 100 a day, reset at midnight; from 00:00 to 06:00 only 10
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 100, "0 0 * * *", UTC)
                .withSchedule(ScheduleEntry.absolute("* 0-5 * * *", UTC, 10))));
        at("2026-06-15T18:00:00Z");
        take("user-1", "daily", 100);
        assertThat(refusedWith("user-1", "daily", 50)).as("not midnight, when only 10 come back")
                .isEqualTo(Duration.ofHours(12));
        assertThat(refusedWith("user-1", "daily", 10)).isEqualTo(Duration.ofHours(6));
        at("2026-06-16T00:00:00Z");
        assertThat(refusedWith("user-1", "daily", 50)).isEqualTo(Duration.ofHours(6));
        at("2026-06-16T05:59:59.999Z");
        refusedWith("user-1", "daily", 50);
        at("2026-06-16T06:00:00Z");
        take("user-1", "daily", 50);
    }

    @Test
    void aWaitShorterThanTheNextBoundaryIsTheRefillWait() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* 2-3 * * *", UTC, 5, 1, Duration.ofMinutes(1)))));
        at("2026-06-15T02:00:00Z");
        take("user-1", "rpm", 5);
        assertThat(refusedWith("user-1", "rpm", 2)).isEqualTo(Duration.ofMinutes(2));
        clock.advance(Duration.ofMinutes(2));
        take("user-1", "rpm", 2);
    }

    @Test
    void aRequestOnlyALargerWindowCanHoldIsRefusedUntilItOpens() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.absolute("* * * * SAT,SUN", UTC, 300))));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.scaled("* * * * SAT,SUN", UTC, 2.5))));

        at("2026-06-15T10:00:00Z");                     // Monday
        assertThat(refusedWith("user-1", "rpm", 200)).as("until Saturday 00:00")
                .isEqualTo(between("2026-06-15T10:00:00Z", "2026-06-20T00:00:00Z"));
        assertThat(refusedWith("user-1", "rpm", 300)).isEqualTo(Duration.ofDays(4).plusHours(14));
        UnsatisfiableRequestException never = catchThrowableOfType(UnsatisfiableRequestException.class,
                () -> limiter.acquire("user-1", RESOURCE, consume("rpm", 301)));
        assertThat(never).isNotNull();
        assertThat(never.capacity()).as("the largest capacity of any window").isEqualTo(300);
        assertThat(never.requested()).isEqualTo(301);
        assertThat(available("user-1", "rpm")).as("nothing taken").isEqualTo(100);

        exceeded(() -> limiter.acquire("user-1", OTHER_RESOURCE, consume("rpm", 250)));
        assertThatThrownBy(() -> limiter.acquire("user-1", OTHER_RESOURCE, consume("rpm", 251)))
                .isInstanceOf(UnsatisfiableRequestException.class);

        at("2026-06-20T00:00:00Z");                     // Saturday
        take("user-1", "rpm", 200);
        limiter.acquire("user-1", OTHER_RESOURCE, consume("rpm", 250)).close();
    }

    // =================================================================================================================
    // One time zone per configuration level
    // =================================================================================================================

    @Test
    void aConfigurationLevelWithScheduledLimitsInTwoZonesIsRejectedAndNothingIsWritten() {
        Limit newYorkRpm = Limit.perMinute("rpm", 100)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * MON-FRI", NEW_YORK, 0.5));
        Limit berlinQuota = Limit.quota("monthly", 1000, "0 0 1 * *", BERLIN);
        List<Limit> mixed = List.of(newYorkRpm, berlinQuota);
        admin.setLimits("user-1", RESOURCE, List.of(Limit.perMinute("rpm", 7)));

        assertThatThrownBy(() -> admin.setLimits("user-1", RESOURCE, mixed))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("share one time zone")
                .hasMessageContaining("Europe/Berlin")
                .hasMessageContaining("America/New_York");
        assertThatThrownBy(() -> admin.setResourceDefaults(RESOURCE, mixed)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> admin.setSystemDefaults(mixed)).isInstanceOf(ValidationException.class);
        assertThat(admin.getLimits("user-1", RESOURCE)).containsExactly(Limit.perMinute("rpm", 7));
        assertThat(admin.getResourceDefaults(RESOURCE)).isEmpty();
        assertThat(admin.getSystemDefaults()).isEmpty();

        // per-call limits are a configuration level too: refused before anything is taken
        assertThatThrownBy(() -> limiter.acquire(AcquireRequest.of("user-1", RESOURCE).consume("rpm", 1)
                .limits(mixed))).isInstanceOf(ValidationException.class);
        assertThat(available("user-1", "rpm")).isEqualTo(7);
    }

    @Test
    void limitsWithoutAZoneSitBesideAnyZoneAndEachLevelHasItsOwn() {
        admin.setResourceDefaults(RESOURCE, List.of(
                Limit.perMinute("rpm", 100).withSchedule(ScheduleEntry.scaled("* 9-17 * * *", NEW_YORK, 0.5)),
                Limit.quota("daily", 1000, "0 0 * * *", NEW_YORK),
                Limit.perMinute("tpm", 10_000),
                Limit.sessionQuota("session", 50, Duration.ofHours(1))));
        admin.setLimits("user-1", RESOURCE, List.of(
                Limit.perMinute("rpm", 100).withSchedule(ScheduleEntry.scaled("* 9-17 * * *", BERLIN, 0.5))));

        assertThat(capacityAt("2026-06-15T08:00:00Z", "rpm")).as("04:00 in New York").isEqualTo(100);
        assertThat(capacityAt("2026-06-15T14:00:00Z", "rpm")).as("10:00 in New York").isEqualTo(50);
        at("2026-06-15T08:00:00Z");                     // 10:00 in Berlin
        assertThat(limiter.available("user-1", RESOURCE)).isEqualTo(Map.of("rpm", 50L));
    }
}
