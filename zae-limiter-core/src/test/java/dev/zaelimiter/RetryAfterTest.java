package dev.zaelimiter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryAfterTest {

    private static final Instant NOW = Instant.parse("1994-11-06T08:49:00Z");

    @Test
    void theThreeHttpDateFormatsOfRfc9110GiveTheSameInstant() {
        Duration expected = Duration.ofSeconds(37);
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).isEqualTo(expected);
        assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).isEqualTo(expected);
        assertThat(RetryAfter.parse("Sun Nov  6 08:49:37 1994", NOW)).isEqualTo(expected);
        assertThat(RetryAfter.parse("Sun Nov 16 08:49:37 1994", NOW)).isEqualTo(Duration.ofDays(10).plus(expected));
        assertThat(RetryAfter.parse("  sun, 06 nov 1994 08:49:37 gmt ", NOW)).isEqualTo(expected);
        assertThat(RetryAfter.parse("Sun, 6 Nov 1994 08:49:37 GMT", NOW)).isEqualTo(expected);
    }

    @Test
    void anRfc850YearMoreThanFiftyYearsAheadIsInThePastCentury() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(RetryAfter.parse("Thursday, 01-Jan-76 00:00:00 GMT", now))
                .isEqualTo(Duration.between(now, Instant.parse("2076-01-01T00:00:00Z")));
        assertThat(RetryAfter.parse("Saturday, 01-Jan-77 00:00:00 GMT", now))
                .isEqualTo(Duration.between(now, Instant.parse("1977-01-01T00:00:00Z")));
    }

    @Test
    void aDateInThePastAsksForNoWait() {
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:48:00 GMT", NOW)).isNegative();
    }

    @Test
    void deltaSecondsTooLargeToRepresentAreClampedToTwoToTheThirtyFirst() {
        Duration max = Duration.ofSeconds(RetryAfter.MAX_DELTA_SECONDS);
        assertThat(RetryAfter.parse("120", NOW)).isEqualTo(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse("0", NOW)).isZero();
        assertThat(RetryAfter.parse("0000000000000000000000007", NOW)).isEqualTo(Duration.ofSeconds(7));
        assertThat(RetryAfter.parse("2147483648", NOW)).isEqualTo(max);
        assertThat(RetryAfter.parse("2147483649", NOW)).isEqualTo(max);
        assertThat(RetryAfter.parse(String.valueOf(Long.MAX_VALUE), NOW)).isEqualTo(max);
        assertThat(RetryAfter.parse("99999999999999999999999999999999999999", NOW)).isEqualTo(max);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "soon", "-1", "+5", "1.5", "1e3", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sun, 06 Nov 99999 08:49:37 GMT",
            "١٢٣"})
    void anythingElseIsATypedValidationError(String value) {
        assertThatThrownBy(() -> RetryAfter.parse(value, NOW))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("retryAfter"));
    }

    @Test
    void nullIsATypedValidationError() {
        assertThatThrownBy(() -> RetryAfter.parse(null, NOW)).isInstanceOf(ValidationException.class);
    }
}
