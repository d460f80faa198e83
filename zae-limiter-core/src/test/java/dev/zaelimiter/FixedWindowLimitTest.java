package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link Limit#fixedWindow}: what it is, where its boundaries fall, and what it refuses to be. */
class FixedWindowLimitTest {

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void aFixedWindowIsAQuotaWithoutAZoneThatResetsAtEveryMultipleOfItsWindow() {
        Limit limit = Limit.fixedWindow("per10s", 20, Duration.ofSeconds(10));
        assertThat(limit.isQuota()).isTrue();
        assertThat(limit.refillAmount()).isZero();
        assertThat(limit.refillPeriod()).isNull();
        assertThat(limit.capacity()).isEqualTo(20);
        assertThat(limit.fixedWindow()).contains(Duration.ofSeconds(10));
        assertThat(limit.fixedWindowOrigin()).contains(Instant.EPOCH);
        assertThat(limit.zone()).isEmpty();
        assertThat(limit.resetSchedule()).isEmpty();
        assertThat(limit.resetAfter()).isEmpty();
        assertThat(Limits.nextResetAfter(limit, at("2026-06-15T10:00:00Z"))).isEqualTo(at("2026-06-15T10:00:10Z"));
        assertThat(Limits.nextResetAfter(limit, at("2026-06-15T10:00:09.999Z"))).isEqualTo(at("2026-06-15T10:00:10Z"));
        assertThat(Limits.nextResetAfter(limit, at("2026-06-15T10:00:10Z"))).isEqualTo(at("2026-06-15T10:00:20Z"));
        assertThat(Limits.nextResetAfter(limit, -1)).isZero();
        assertThat(Limits.nextResetAfter(limit, -10_001)).isEqualTo(-10_000);
        assertThat(Limits.nextResetAfter(limit, Long.MAX_VALUE - 1)).isEqualTo(Limits.NEVER);
        assertThat(Limits.nextChangeAfter(limit, 0)).isEqualTo(Limits.NEVER);
        assertThat(limit).hasToString("Limit[per10s: 20 per fixed window of PT10S]");
    }

    @Test
    void anOriginOnlyShiftsTheBoundaries() {
        Limit shifted = Limit.fixedWindow("m", 5, Duration.ofMinutes(1), Instant.parse("2026-06-15T10:00:30Z"));
        assertThat(shifted.fixedWindowOrigin()).contains(Instant.ofEpochSecond(30));
        assertThat(Limits.nextResetAfter(shifted, at("2026-06-15T10:05:10Z"))).isEqualTo(at("2026-06-15T10:05:30Z"));
        assertThat(Limits.nextResetAfter(shifted, at("2026-06-15T10:05:30Z"))).isEqualTo(at("2026-06-15T10:06:30Z"));
        assertThat(shifted).isEqualTo(Limit.fixedWindow("m", 5, Duration.ofMinutes(1), Instant.ofEpochSecond(-30)))
                .hasSameHashCodeAs(Limit.fixedWindow("m", 5, Duration.ofMinutes(1), Instant.ofEpochSecond(90)))
                .isNotEqualTo(Limit.fixedWindow("m", 5, Duration.ofMinutes(1)))
                .hasToString("Limit[m: 5 per fixed window of PT1M from 1970-01-01T00:00:30Z]");
        assertThat(Limit.fixedWindow("m", 5, Duration.ofMinutes(1), Instant.parse("2026-06-15T10:00:00Z")))
                .as("an origin on a boundary of the epoch's grid changes nothing")
                .isEqualTo(Limit.fixedWindow("m", 5, Duration.ofMinutes(1)));
    }

    @Test
    void derivedLimitsKeepTheWindow() {
        Limit limit = Limit.fixedWindow("w", 5, Duration.ofSeconds(1), Instant.ofEpochMilli(250));
        Limit soft = limit.soft();
        assertThat(soft.isSoft()).isTrue();
        assertThat(soft.fixedWindow()).contains(Duration.ofSeconds(1));
        assertThat(soft.fixedWindowOrigin()).contains(Instant.ofEpochMilli(250));
        assertThat(soft.hard()).isEqualTo(limit);
        assertThat(limit.withBurst(8).capacity()).isEqualTo(8);
        assertThat(limit.withBurst(8).fixedWindow()).contains(Duration.ofSeconds(1));
        Limit scheduled = limit.withSchedule(ScheduleEntry.absolute("* 9-17 * * *", ZoneOffset.UTC, 50));
        assertThat(scheduled.fixedWindow()).contains(Duration.ofSeconds(1));
        assertThat(Limits.maxCapacityMilli(scheduled)).isEqualTo(50 * Limits.MILLI);
    }

    @Test
    void theShortestAndLongestWindowsAreAccepted() {
        assertThatCode(() -> Limit.fixedWindow("a", 1, Duration.ofMillis(1))).doesNotThrowAnyException();
        Limit longest = Limit.fixedWindow("b", 1, Limit.MAX_PERIOD);
        assertThat(Limits.nextResetAfter(longest, 0)).isEqualTo(Limit.MAX_PERIOD.toMillis());
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "-PT1S", "PT0.0005S", "PT1.0005S"})
    void aWindowThatIsNotAWholePositiveNumberOfMillisecondsIsRejected(String window) {
        ValidationException e = catchThrowableOfType(ValidationException.class,
                () -> Limit.fixedWindow("w", 5, Duration.parse(window)));
        assertThat(e).isNotNull();
        assertThat(e.field()).isEqualTo("limit w window");
    }

    @Test
    void aWindowLongerThanTheLongestPeriodIsRejected() {
        assertThatThrownBy(() -> Limit.fixedWindow("w", 5, Limit.MAX_PERIOD.plusMillis(1)))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("a fixed window must be at least one millisecond and at most 36600 days");
    }

    @Test
    void badAllowancesNamesAndOriginsAreRejected() {
        assertThatThrownBy(() -> Limit.fixedWindow("w", 0, Duration.ofSeconds(1)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("greater than zero");
        assertThatThrownBy(() -> Limit.fixedWindow("w", Limit.MAX_TOKENS + 1, Duration.ofSeconds(1)))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Limit.fixedWindow("9w", 1, Duration.ofSeconds(1)))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Limit.fixedWindow("w", 1, Duration.ofSeconds(1), Instant.MAX))
                .isInstanceOf(ValidationException.class).hasMessageContaining("epoch milliseconds");
        assertThatThrownBy(() -> Limit.fixedWindow("w", 1, Duration.ofSeconds(1), Instant.ofEpochSecond(0, 1)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("whole number of milliseconds");
        assertThatThrownBy(() -> Limit.fixedWindow("w", 1, null)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("window");
    }

    @Test
    void aFixedWindowDoesNotDrip() {
        assertThatThrownBy(() -> Limit.fixedWindow("w", 5, Duration.ofSeconds(1))
                .withSchedule(ScheduleEntry.absolute("* 9-17 * * *", ZoneOffset.UTC, 20, 5, Duration.ofMinutes(1))))
                .isInstanceOf(ValidationException.class).hasMessageContaining("does not drip");
    }
}
