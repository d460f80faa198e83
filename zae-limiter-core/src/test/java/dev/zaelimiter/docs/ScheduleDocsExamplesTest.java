package dev.zaelimiter.docs;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The Java examples of {@code docs/schedules-and-quotas.md}. The code between {@code // tag::NAME[]} and
 * {@code // end::NAME[]} is what the page shows under {@code <!-- example: NAME -->}; {@link DocsSnippetsTest} checks
 * that the two stay identical.
 */
@DisplayName("docs examples: schedules-and-quotas.md")
class ScheduleDocsExamplesTest {

    @Test
    void windowNotTimer() {
        // tag::windowNotTimer[]
        Limit oneMinute = Limit.perMinute("rpm", 100).withSchedule(ScheduleEntry.scaled("0 9 * * *", 0.1));
        Limit wholeHour = Limit.perMinute("rpm", 100).withSchedule(ScheduleEntry.scaled("* 9 * * *", 0.1));
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T09:00:30Z"));
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("one-minute", List.of(oneMinute));
        limiter.admin().setResourceDefaults("whole-hour", List.of(wholeHour));

        // 09:00:30 UTC: both windows are open
        assertThat(limiter.available("user-1", "one-minute")).containsEntry("rpm", 10L);
        assertThat(limiter.available("user-1", "whole-hour")).containsEntry("rpm", 10L);
        // 09:01: "0 9 * * *" matched a single minute and has closed; "* 9 * * *" stays open until 10:00
        clock.set(Instant.parse("2026-06-15T09:01:00Z"));
        assertThat(limiter.available("user-2", "one-minute")).containsEntry("rpm", 100L);
        assertThat(limiter.available("user-2", "whole-hour")).containsEntry("rpm", 10L);
        // end::windowNotTimer[]
    }

    @Test
    void peakOffPeak() {
        // tag::peakOffPeak[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T14:00:00Z"));   // Monday 10:00 in New York
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1_000)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * MON-FRI", newYork, 0.5))));

        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 500L);   // half the capacity
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 500L)).close();
        clock.advance(Duration.ofSeconds(30));
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 250L);   // and half the refill

        clock.set(Instant.parse("2026-06-15T22:00:00Z"));                               // 18:00: window closed
        assertThat(limiter.available("user-2", "gpt-4")).containsEntry("rpm", 1_000L);
        // end::peakOffPeak[]
    }

    @Test
    void maintenanceWindow() {
        // tag::maintenanceWindow[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T07:30:00Z"));   // 03:30 in New York
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1_000).withSchedule(
                // 02:00 to 03:59: a trickle of 10, one back per minute
                ScheduleEntry.absolute("* 2-3 * * *", newYork, 10, 1, Duration.ofMinutes(1)),
                // 00:00 to 06:59 otherwise: more room, the base refill of 1,000 per minute
                ScheduleEntry.absolute("* 0-6 * * *", newYork, 2_000))));

        assertThat(limiter.available("batch-1", "gpt-4")).containsEntry("rpm", 10L);
        limiter.acquire("batch-1", "gpt-4", Map.of("rpm", 10L)).close();
        clock.advance(Duration.ofMinutes(3));
        assertThat(limiter.available("batch-1", "gpt-4")).containsEntry("rpm", 3L);

        clock.set(Instant.parse("2026-06-15T09:00:00Z"));                               // 05:00
        assertThat(limiter.available("batch-2", "gpt-4")).containsEntry("rpm", 2_000L);
        // end::maintenanceWindow[]
    }

    @Test
    void weekendCapacity() {
        // tag::weekendCapacity[]
        ZoneId newYork = ZoneId.of("America/New_York");
        Limit rpm = Limit.perMinute("rpm", 1_000).withSchedule(
                ScheduleEntry.scaled("* * * * SAT,SUN", newYork, 2.0),       // the specific entry first
                ScheduleEntry.scaled("* 9-17 * * *", newYork, 0.5));         // then the general one
        MutableClock clock = new MutableClock(Instant.parse("2026-06-13T14:00:00Z"));   // Saturday 10:00
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(rpm));

        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 2_000L); // both match: first wins
        clock.set(Instant.parse("2026-06-15T14:00:00Z"));                               // Monday 10:00
        assertThat(limiter.available("user-2", "gpt-4")).containsEntry("rpm", 500L);
        clock.set(Instant.parse("2026-06-16T00:00:00Z"));                               // Monday 20:00
        assertThat(limiter.available("user-3", "gpt-4")).containsEntry("rpm", 1_000L); // none: the base
        // end::weekendCapacity[]
    }

    @Test
    void firstMatchOrder() {
        // tag::firstMatchOrder[]
        ZoneId newYork = ZoneId.of("America/New_York");
        ScheduleEntry weekend = ScheduleEntry.scaled("* * * * SAT,SUN", newYork, 2.0);
        ScheduleEntry daytime = ScheduleEntry.scaled("* 9-17 * * *", newYork, 0.5);
        MutableClock clock = new MutableClock(Instant.parse("2026-06-13T14:00:00Z"));   // Saturday 10:00
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("weekend-first",
                List.of(Limit.perMinute("rpm", 1_000).withSchedule(weekend, daytime)));
        limiter.admin().setResourceDefaults("daytime-first",
                List.of(Limit.perMinute("rpm", 1_000).withSchedule(daytime, weekend)));

        assertThat(limiter.available("user-1", "weekend-first")).containsEntry("rpm", 2_000L);
        assertThat(limiter.available("user-1", "daytime-first")).containsEntry("rpm", 500L);
        // end::firstMatchOrder[]
    }

    @Test
    void daylightSaving() {
        // tag::daylightSaving[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-03-06T14:00:00Z"));   // Friday 09:00 EST, UTC-5
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1_000)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * MON-FRI", newYork, 0.5))));

        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 500L);
        clock.set(Instant.parse("2026-03-09T12:59:00Z"));                               // Monday 08:59 EDT, UTC-4
        assertThat(limiter.available("user-2", "gpt-4")).containsEntry("rpm", 1_000L);
        clock.set(Instant.parse("2026-03-09T13:00:00Z"));                               // Monday 09:00 EDT
        assertThat(limiter.available("user-3", "gpt-4")).containsEntry("rpm", 500L);
        // end::daylightSaving[]
    }

    @Test
    void oneZonePerLevel() {
        // tag::oneZonePerLevel[]
        RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();
        Limit rpm = Limit.perMinute("rpm", 1_000)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * MON-FRI", ZoneId.of("America/New_York"), 0.5));
        Limit monthly = Limit.quota("monthly", 10_000, "0 0 1 * *", ZoneId.of("Europe/Berlin"));

        assertThatThrownBy(() -> limiter.admin().setResourceDefaults("gpt-4", List.of(rpm, monthly)))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("share one time zone");
        assertThat(limiter.admin().getResourceDefaults("gpt-4")).isEmpty();            // nothing was written

        limiter.admin().setResourceDefaults("gpt-4", List.of(rpm, Limit.perMinute("tpm", 50_000)));
        limiter.admin().setResourceDefaults("gpt-4-billing", List.of(monthly));
        // end::oneZonePerLevel[]
    }

    @Test
    void scheduleOverride() {
        // tag::scheduleOverride[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T14:00:00Z"));   // Monday 10:00 in New York
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1_000)
                .withSchedule(ScheduleEntry.scaled("* 9-17 * * MON-FRI", newYork, 0.5))));
        limiter.admin().setLimits("enterprise-1", "gpt-4", List.of(Limit.perMinute("rpm", 2_000)));

        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 500L);
        assertThat(limiter.available("enterprise-1", "gpt-4")).containsEntry("rpm", 2_000L); // unscheduled
        // end::scheduleOverride[]
    }

    @Test
    void monthlyQuota() {
        // tag::monthlyQuota[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-06-20T16:00:00Z"));   // 20 June, noon
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4",
                List.of(Limit.quota("monthly", 10_000, "0 0 1 * *", newYork)));        // midnight on the 1st

        limiter.acquire("user-1", "gpt-4", Map.of("monthly", 10_000L)).close();
        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("user-1", "gpt-4", Map.of("monthly", 1L)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofDays(10).plusHours(12));      // until 1 July 00:00

        clock.set(Instant.parse("2026-07-01T03:59:59Z"));                              // 30 June 23:59:59
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("monthly", 0L); // nothing dripped back
        clock.set(Instant.parse("2026-07-01T04:00:00Z"));                              // 1 July 00:00
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("monthly", 10_000L);
        // end::monthlyQuota[]
    }

    @Test
    void quotaPeriods() {
        // tag::quotaPeriods[]
        ZoneId newYork = ZoneId.of("America/New_York");
        Limit daily = Limit.quota("daily", 10_000, "0 0 * * *", newYork);          // local midnight
        Limit weekly = Limit.quota("weekly", 50_000, "0 0 * * MON", newYork);      // Monday, midnight
        Limit shifts = Limit.quota("shifts", 500, "0 */5 * * *", newYork);         // 00:00, 05:00, 10:00 ...

        assertThat(daily.isQuota()).isTrue();
        assertThat(daily.refillAmount()).isZero();                                 // a quota never drips
        assertThat(weekly.resetSchedule()).contains("0 0 * * MON");
        assertThat(shifts.zone()).contains(newYork);
        // end::quotaPeriods[]
    }

    @Test
    void idleQuota() {
        // tag::idleQuota[]
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T18:00:00Z"));
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("reports",
                List.of(Limit.quota("daily", 100, "0 0 * * *", ZoneOffset.UTC)));
        limiter.acquire("user-1", "reports", Map.of("daily", 100L)).close();

        clock.set(Instant.parse("2026-06-19T09:00:00Z"));                   // four midnights later
        assertThat(limiter.available("user-1", "reports")).containsEntry("daily", 100L);
        limiter.acquire("user-1", "reports", Map.of("daily", 100L)).close();
        clock.set(Instant.parse("2026-06-19T23:59:00Z"));                   // the missed midnights left no credit
        assertThat(limiter.available("user-1", "reports")).containsEntry("daily", 0L);
        // end::idleQuota[]
    }

    @Test
    void quotaEdgeInGap() {
        // tag::quotaEdgeInGap[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-03-07T17:00:00Z"));   // Saturday 12:00 EST
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("jobs", List.of(Limit.quota("nightly", 5, "30 2 * * *", newYork)));
        limiter.acquire("user-1", "jobs", Map.of("nightly", 5L)).close();

        clock.set(Instant.parse("2026-03-08T07:00:00Z"));   // Sunday 03:00 EDT: there was no 02:30 today
        assertThat(limiter.available("user-1", "jobs")).containsEntry("nightly", 5L);
        limiter.acquire("user-1", "jobs", Map.of("nightly", 5L)).close();
        clock.set(Instant.parse("2026-03-08T07:30:00Z"));   // and the skipped reset fires only once
        assertThat(limiter.available("user-1", "jobs")).containsEntry("nightly", 0L);
        // end::quotaEdgeInGap[]
    }

    @Test
    void softQuota() {
        // tag::softQuota[]
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T10:00:00Z"));
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4",
                List.of(Limit.quota("daily-tokens", 10_000, "0 0 * * *", ZoneOffset.UTC).soft()));

        limiter.acquire("user-1", "gpt-4", Map.of("daily-tokens", 12_500L)).close();   // metered, not refused
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("daily-tokens", -2_500L);
        clock.set(Instant.parse("2026-06-16T00:00:00Z"));
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("daily-tokens", 10_000L);
        // end::softQuota[]
    }

    @Test
    void sessionQuota() {
        // tag::sessionQuota[]
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T10:00:00Z"));
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4",
                List.of(Limit.sessionQuota("session", 500, Duration.ofHours(5))));

        limiter.acquire("alice", "gpt-4", Map.of("session", 500L)).close();   // alice: 10:00 to 15:00
        clock.set(Instant.parse("2026-06-15T12:00:00Z"));
        limiter.acquire("bob", "gpt-4", Map.of("session", 500L)).close();     // bob: 12:00 to 17:00
        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("alice", "gpt-4", Map.of("session", 1L)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofHours(3));

        clock.set(Instant.parse("2026-06-15T15:00:00Z"));
        assertThat(limiter.available("alice", "gpt-4")).containsEntry("session", 500L);
        assertThat(limiter.available("bob", "gpt-4")).containsEntry("session", 0L);
        // end::sessionQuota[]
    }

    @Test
    void fixedWindow() {
        // tag::fixedWindow[]
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T10:00:03.250Z"));
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("sms",
                List.of(Limit.fixedWindow("per10s", 20, Duration.ofSeconds(10))));   // 10:00:00-10:00:10, 10:00:10-...

        limiter.acquire("user-1", "sms", Map.of("per10s", 20L)).close();
        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("user-1", "sms", Map.of("per10s", 1L)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(6_750));              // until 10:00:10

        clock.set(Instant.parse("2026-06-15T10:00:09.999Z"));
        assertThat(limiter.available("user-1", "sms")).containsEntry("per10s", 0L);   // nothing dripped back
        clock.set(Instant.parse("2026-06-15T10:00:10Z"));
        assertThat(limiter.available("user-1", "sms")).containsEntry("per10s", 20L);
        // end::fixedWindow[]
    }

    @Test
    void fixedWindowOrigin() {
        // tag::fixedWindowOrigin[]
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T10:05:10Z"));
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("exports", List.of(Limit.fixedWindow("per-minute", 3,
                Duration.ofMinutes(1), Instant.parse("2026-01-01T00:00:30Z"))));     // from :30 to :30
        limiter.admin().setResourceDefaults("metered", List.of(
                Limit.fixedWindow("per-second", 5, Duration.ofSeconds(1)).soft()));

        limiter.acquire("user-1", "exports", Map.of("per-minute", 3L)).close();
        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("user-1", "exports", Map.of("per-minute", 1L)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(20));                // until 10:05:30

        try (Lease lease = limiter.acquire("user-1", "metered", Map.of("per-second", 8L))) {
            assertThat(lease.overdrawn()).containsExactly("per-second");              // metered, not refused
        }
        clock.set(Instant.parse("2026-06-15T10:05:11Z"));
        assertThat(limiter.available("user-1", "metered")).containsEntry("per-second", 5L);
        // end::fixedWindowOrigin[]
    }

    @Test
    void quotaRetryAfter() {
        // tag::quotaRetryAfter[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T22:00:00Z"));   // 18:00 in New York
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.quota("daily", 100, "0 0 * * *", newYork)));

        limiter.acquire("user-1", "gpt-4", Map.of("daily", 100L)).close();
        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("user-1", "gpt-4", Map.of("daily", 1L)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofHours(6));                    // until local midnight
        // end::quotaRetryAfter[]
    }

    @Test
    void retryAfterWindowEnds() {
        // tag::retryAfterWindowEnds[]
        ZoneId newYork = ZoneId.of("America/New_York");
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T07:50:00Z"));   // 03:50 in New York
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1_000).withSchedule(
                ScheduleEntry.absolute("* 2-3 * * *", newYork, 10, 1, Duration.ofHours(1)))));
        limiter.acquire("batch-1", "gpt-4", Map.of("rpm", 10L)).close();

        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("batch-1", "gpt-4", Map.of("rpm", 5L)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofMinutes(10));   // not the 5 hours of the window's rate
        clock.advance(Duration.ofMinutes(10).plusSeconds(1));
        limiter.acquire("batch-1", "gpt-4", Map.of("rpm", 5L)).close();
        // end::retryAfterWindowEnds[]
    }

    @Test
    void retryAfterWindowLowers() {
        // tag::retryAfterWindowLowers[]
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T10:00:00Z"));
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perHour("rph", 60)        // one a minute
                .withSchedule(ScheduleEntry.scaled("10-59 10 * * *", ZoneOffset.UTC, 0.5))));  // half from 10:10
        limiter.acquire("batch-1", "gpt-4", Map.of("rph", 60L)).close();

        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("batch-1", "gpt-4", Map.of("rph", 25L)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofMinutes(50));   // not the 25 minutes of the base rate
        clock.advance(Duration.ofMinutes(50));
        limiter.acquire("batch-1", "gpt-4", Map.of("rph", 25L)).close();
        // end::retryAfterWindowLowers[]
    }

    @Test
    void largerWindowOnly() {
        // tag::largerWindowOnly[]
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T10:00:00Z"));   // Monday 10:00 UTC
        RateLimiter limiter = RateLimiter.builder().clock(clock).build();
        limiter.admin().setResourceDefaults("exports", List.of(Limit.perMinute("rows", 100)
                .withSchedule(ScheduleEntry.absolute("* * * * SAT,SUN", ZoneOffset.UTC, 300))));

        RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("user-1", "exports", Map.of("rows", 250L)));   // fits on weekends only
        assertThat(e.retryAfter()).isEqualTo(Duration.ofDays(4).plusHours(14));     // Saturday 00:00
        assertThatThrownBy(() -> limiter.acquire("user-1", "exports", Map.of("rows", 301L)))
                .isInstanceOf(UnsatisfiableRequestException.class);                 // fits in no window
        // end::largerWindowOnly[]
    }

    @Test
    void validationRules() {
        // tag::validationRules[]
        ZoneId newYork = ZoneId.of("America/New_York");
        assertThatExceptionOfType(ValidationException.class)                       // a leading seconds field
                .isThrownBy(() -> ScheduleEntry.scaled("0 * 9-17 * * MON-FRI", newYork, 0.5))
                .withMessageContaining("drop the first field and write '* 9-17 * * MON-FRI'");
        assertThatExceptionOfType(ValidationException.class)                       // a range that ends at Sunday
                .isThrownBy(() -> ScheduleEntry.scaled("* * * * SAT-SUN", newYork, 2.0))
                .withMessageContaining("write * or a list instead (here: SAT,SUN)");
        assertThatExceptionOfType(ValidationException.class)                       // L, W and # are not supported
                .isThrownBy(() -> Limit.quota("monthly", 10_000, "0 0 L * *", newYork))
                .withMessageContaining("L (last), which is not supported");
        assertThatExceptionOfType(ValidationException.class)                       // a scale and a capacity
                .isThrownBy(() -> ScheduleEntry.of("* 9-17 * * *", newYork, 0.5, 2_000L, null, null))
                .withMessageContaining("not both");
        assertThatExceptionOfType(ValidationException.class)
                .isThrownBy(() -> ScheduleEntry.scaled("* 9-17 * * *", newYork, 0))
                .withMessageContaining("a scale is a finite number greater than zero");
        assertThatExceptionOfType(ValidationException.class)
                .isThrownBy(() -> ScheduleEntry.zone("tz", "Mars/Olympus"))
                .withMessageContaining("not a known time zone");
        assertThatExceptionOfType(ValidationException.class)                       // an empty window
                .isThrownBy(() -> Limit.fixedWindow("per10s", 20, Duration.ZERO))
                .withMessageContaining("a fixed window must be at least one millisecond");
        assertThatExceptionOfType(ValidationException.class)                       // drip and reset
                .isThrownBy(() -> Limit.quota("daily", 10, "0 0 * * *", newYork)
                        .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", newYork, 20, 5, Duration.ofMinutes(1))))
                .withMessageContaining("a quota does not drip");
        assertThatExceptionOfType(ValidationException.class)                       // neither drip nor reset
                .isThrownBy(() -> Limit.custom("jobs", 5, 0, Duration.ofMinutes(1)))
                .withMessageContaining("is a quota (Limit.quota)");
        // end::validationRules[]
    }

    @Test
    void canonicalDisplay() {
        // tag::canonicalDisplay[]
        ScheduleEntry weekdays = ScheduleEntry.scaled("* 9-17 * * 1-5", ZoneId.of("America/New_York"), 0.5);
        assertThat(weekdays.cron()).isEqualTo("* 9-17 * * MON-FRI");
        assertThat(weekdays).hasToString("\"* 9-17 * * MON-FRI\" America/New_York -> scale 0.5");

        assertThat(ScheduleEntry.scaled("* * * * 0,6", 2.0))                      // Sunday as 0, 7 or SUN
                .isEqualTo(ScheduleEntry.scaled("* * * * SAT,7", 2.0))
                .isEqualTo(ScheduleEntry.scaled("* * * * SUN,SAT", 2.0));
        assertThat(Limit.quota("halves", 10, "0 0 1 1,7 *", ZoneOffset.UTC).resetSchedule().orElseThrow())
                .isEqualTo("0 0 1 JAN,JUL *");
        // end::canonicalDisplay[]
    }
}
