package dev.zaelimiter.internal.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zaelimiter.ValidationException;

import java.time.LocalDateTime;

import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CronPatternParseTest {

    private static CronPattern parse(String expression) {
        return CronPattern.parse("schedule.cron", expression);
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> rejects(String expression) {
        return assertThatThrownBy(() -> parse(expression))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("schedule.cron");
                    assertThat(e.value()).isEqualTo(expression);
                })
                .hasMessageStartingWith("schedule.cron '" + expression + "' is invalid: ");
    }

    // --- canonical forms ---

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "* 9-17 * * 1-5          | * 9-17 * * MON-FRI",
            "* 9-17 * * mon-fri      | * 9-17 * * MON-FRI",
            "0 0 * * 0               | 0 0 * * SUN",
            "0 0 * * 7               | 0 0 * * SUN",
            "0 0 * * SUN             | 0 0 * * SUN",
            "0 0 * * sun             | 0 0 * * SUN",
            "0 0 * * 1,7             | 0 0 * * MON,SUN",
            "0 0 * * 0,1,7           | 0 0 * * MON,SUN",
            "0 0 * * SUN,MON         | 0 0 * * MON,SUN",
            "0 0 * * 6,0             | 0 0 * * SAT,SUN",
            "0 0 * * SUN-THU         | 0 0 * * MON-THU,SUN",
            "0 0 * * 0-4             | 0 0 * * MON-THU,SUN",
            "0 0 * * 0-6             | 0 0 * * *",
            "0 0 * * SUN-SAT         | 0 0 * * *",
            "0 0 * * */2             | 0 0 * * TUE,THU,SAT,SUN",
            "0 0 * * SUN/2           | 0 0 * * TUE,THU,SAT,SUN",
            "0 0 * * 1-5/2           | 0 0 * * MON,WED,FRI",
            "0 0 1 1,7 *             | 0 0 1 JAN,JUL *",
            "0 0 1 jan-mar,12 *      | 0 0 1 JAN-MAR,DEC *",
            "0 0 1 */3 *             | 0 0 1 JAN,APR,JUL,OCT *",
            "*/15 * * * *            | */15 * * * *",
            "0,15,30,45 * * * *      | */15 * * * *",
            "0-59/15 * * * *         | */15 * * * *",
            "5/15 * * * *            | 5/15 * * * *",
            "15/15 * * * *           | 15,30,45 * * * *",
            "0,30 * * * *            | 0,30 * * * *",
            "1-5/2 * * * *           | 1,3,5 * * * *",
            "0 9,10 * * *            | 0 9,10 * * *",
            "0 0/2 * * *             | 0 */2 * * *",
            "0 0 */2 * *             | 0 0 */2 * *",
            "*/1 * * * *             | * * * * *",
            "0-59 0-23 1-31 1-12 0-6 | * * * * *",
            "  0   0  *  *  *        | 0 0 * * *",
    })
    void canonicalForm(String written, String canonical) {
        CronPattern pattern = parse(written);
        assertThat(pattern.expression()).isEqualTo(canonical);
        assertThat(pattern).hasToString(canonical);
        assertThat(parse(canonical)).isEqualTo(pattern).hasSameHashCodeAs(pattern);
    }

    @Test
    void sundayWrittenAnyWayStoresIdentically() {
        CronPattern zero = parse("0 12 * * 0");
        assertThat(parse("0 12 * * 7")).isEqualTo(zero);
        assertThat(parse("0 12 * * SUN")).isEqualTo(zero);
        assertThat(parse("0 12 * * 0,7")).isEqualTo(zero);
        assertThat(parse("0 12 * * 3,7")).isEqualTo(parse("0 12 * * WED,SUN")).isEqualTo(parse("0 12 * * 0,3"));
        assertThat(parse("0 12 * * 1")).isNotEqualTo(zero);
        // 5 April 2026 is a Sunday
        assertThat(zero.matches(LocalDateTime.of(2026, 4, 5, 12, 0))).isTrue();
        assertThat(zero.matches(LocalDateTime.of(2026, 4, 6, 12, 0))).isFalse();
    }

    @Test
    void differentPatternsDiffer() {
        assertThat(parse("0 0 * * *")).isNotEqualTo(parse("0 0 1 * *")).isNotEqualTo(parse("1 0 * * *"));
        assertThat(parse("0 0 1 * MON")).isNotEqualTo(parse("0 0 1 * *"));
    }

    // --- rejections ---

    @ParameterizedTest
    @ValueSource(strings = {"", "   "})
    void blankIsRejected(String expression) {
        rejects(expression).hasMessageContaining("a cron expression is required").hasMessageContaining("five fields");
    }

    @Test
    void nullIsRejected() {
        assertThatThrownBy(() -> parse(null)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("schedule.cron").hasMessageContaining("required");
    }

    @Test
    void sixFieldsSaySecondsAreNotAddressable() {
        rejects("0 0 9 * * MON")
                .hasMessageContaining("seconds are not addressable")
                .hasMessageContaining("drop the first field")
                .hasMessageContaining("'0 9 * * MON'");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"0 0 * | 3 fields", "0 0 * * | 4 fields", "0 0 0 1 1 * 2026 | 7 fields",
            "daily | 1 field,"})
    void otherFieldCountsAreRejected(String expression, String count) {
        rejects(expression).hasMessageContaining("it has " + count).hasMessageContaining("exactly five");
    }

    @Test
    void nicknamesAreRejectedWithTheirFiveFields() {
        rejects("@daily").hasMessageContaining("nicknames").hasMessageContaining("'0 0 * * *'");
        rejects("@monthly").hasMessageContaining("'0 0 1 * *'");
        rejects("@every 5m").hasMessageContaining("nicknames");
    }

    @Test
    void lastIsRejected() {
        rejects("0 0 L * *").hasMessageContaining("L (last)").hasMessageContaining("not supported")
                .hasMessageContaining("0 0 1 * *");
        rejects("0 0 * * 5L").hasMessageContaining("day-of-week field uses L (last)");
        rejects("0 0 L-3 * *").hasMessageContaining("L (last)");
    }

    @Test
    void weekdayModifierIsRejected() {
        rejects("0 0 15W * *").hasMessageContaining("W (nearest weekday)").hasMessageContaining("MON-FRI");
        rejects("0 0 LW * *").hasMessageContaining("W (nearest weekday)");
    }

    @Test
    void nthWeekdayIsRejected() {
        rejects("0 0 * * MON#2").hasMessageContaining("# (nth weekday of the month)")
                .hasMessageContaining("not supported");
    }

    @Test
    void questionMarkIsRejected() {
        rejects("0 0 ? * MON").hasMessageContaining("uses ?").hasMessageContaining("write *");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "0 0 * * MON-SUN   | MON-SUN   | *",
            "0 0 * * mon-sun   | MON-SUN   | *",
            "0 0 * * 1-7       | 1-7       | *",
            "0 0 * * 0-7       | 0-7       | *",
            "0 0 * * SAT-SUN   | SAT-SUN   | SAT,SUN",
            "0 0 * * 6-7       | 6-7       | SAT,SUN",
            "0 0 * * FRI-0     | FRI-0     | FRI,SAT,SUN",
            "0 0 * * MON-SUN/2 | MON-SUN/2 | MON,WED,FRI,SUN",
    })
    void dayOfWeekRangeEndingAtSundayIsRejected(String expression, String range, String instead) {
        rejects(expression)
                .hasMessageContaining("day-of-week range " + range + " ends at Sunday")
                .hasMessageContaining("Sunday is 0 inside a range")
                .hasMessageContaining("runs backwards")
                .hasMessageContaining("write * or a list instead (here: " + instead + ")");
    }

    @Test
    void dayOfWeekRangeStartingAtSevenIsRejected() {
        rejects("0 0 * * 7-4")
                .hasMessageContaining("day-of-week range 7-4 starts at 7")
                .hasMessageContaining("runs backwards")
                .hasMessageContaining("write * or a list instead (here: MON-THU,SUN)");
    }

    @Test
    void sevenInAStepIsRejected() {
        rejects("0 0 * * 7/2").hasMessageContaining("Sunday is 0 in a step").hasMessageContaining("write 0/2");
    }

    @Test
    void sundayStartsARangeOrStepAsZero() {
        assertThat(parse("0 0 * * SUN-THU")).isEqualTo(parse("0 0 * * 0-4"));
        assertThat(parse("0 0 * * SUN/2")).isEqualTo(parse("0 0 * * 0,2,4,6"));
        assertThat(parse("0 0 * * SUN-SUN")).isEqualTo(parse("0 0 * * 7"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "60 * * * *   | minute value 60 is out of range; write 0 to 59",
            "0 24 * * *   | hour value 24 is out of range; write 0 to 23",
            "0 0 32 * *   | day-of-month value 32 is out of range; write 1 to 31",
            "0 0 0 * *    | day-of-month value 0 is out of range; write 1 to 31",
            "0 0 * 13 *   | month value 13 is out of range; write 1 to 12 or JAN to DEC",
            "0 0 * 0 *    | month value 0 is out of range; write 1 to 12 or JAN to DEC",
            "0 0 * * 8    | day-of-week value 8 is out of range; write 0 to 7 (0 and 7 are both Sunday) or SUN to SAT",
            "0 0-99 * * * | hour value 99 is out of range",
            "0 0 1-99999999999 * * | day-of-month value 99999999999 is out of range",
    })
    void outOfRangeValuesAreRejected(String expression, String message) {
        rejects(expression).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "*/0 * * * *   | write a step from 1 to 59",
            "*/60 * * * *  | write a step from 1 to 59",
            "0 */24 * * *  | write a step from 1 to 23",
            "0 0 * */13 *  | write a step from 1 to 12",
            "0 0 * * */7   | write a step from 1 to 6",
            "*/x * * * *   | must be a whole number",
            "*/ * * * *    | must be a whole number",
            "/5 * * * *    | has a step but no start",
            "1/2/3 * * * * | more than one step",
    })
    void badStepsAreRejected(String expression, String message) {
        rejects(expression).hasMessageContaining(message);
    }

    @Test
    void backwardsRangesAreRejectedWithTheWrappedList() {
        rejects("0 22-2 * * *").hasMessageContaining("hour range 22-2 runs backwards")
                .hasMessageContaining("write 0-2,22,23 instead");
        rejects("0 0 * * FRI-TUE").hasMessageContaining("day-of-week range FRI-TUE runs backwards")
                .hasMessageContaining("write MON,TUE,FRI,SAT,SUN instead");
        rejects("0 0 * NOV-FEB *").hasMessageContaining("write JAN,FEB,NOV,DEC instead");
        rejects("50-10/5 * * * *").hasMessageContaining("split it into two ranges")
                .hasMessageContaining("50-59/5 and 0-10/5");
    }

    @Test
    void badNamesAndCharactersAreRejected() {
        rejects("0 0 * FOO *").hasMessageContaining("'FOO' is not a month name; write 1 to 12 or JAN to DEC");
        rejects("0 0 * * MONDAY").hasMessageContaining("'MONDAY' is not a day-of-week name");
        rejects("0 MON * * *").hasMessageContaining("the hour field takes numbers, not names like 'MON'");
    }

    @Test
    void punctuationIsRejected() {
        rejects("0 0 * * MON|TUE").hasMessageContaining("contains '|'");
        rejects("0 0 1,,2 * *").hasMessageContaining("empty list entry");
        rejects("0 0 1, * *").hasMessageContaining("empty list entry");
        rejects("0 0 -1 * *").hasMessageContaining("negative values are not allowed");
        rejects("0 0 1- * *").hasMessageContaining("write a range as FROM-TO");
        rejects("0 0 1-2-3 * *").hasMessageContaining("write a range as FROM-TO");
        rejects("0 0 1a * *").hasMessageContaining("'1a' is not a day-of-month value");
        rejects("0 0 *-5 * *").hasMessageContaining("'*' is not a day-of-month value");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "0 0 31 2 *          | FEB never has day 31",
            "0 0 30 2 *          | FEB never has day 30",
            "0 0 30,31 2 *       | FEB never has day 30,31",
            "0 0 31 4,6,9,11 *   | APR,JUN,SEP,NOV never have day 31",
            "0 0 31 FEB,APR *    | FEB,APR never have day 31",
    })
    void patternsThatCanNeverMatchAreRejected(String expression, String message) {
        rejects(expression).hasMessageContaining("it can never match: " + message)
                .hasMessageContaining("choose days that exist");
    }

    @Test
    void rareButPossibleDaysAreAccepted() {
        assertThat(parse("0 0 29 2 *").matches(LocalDateTime.of(2028, 2, 29, 0, 0))).isTrue();
        assertThat(parse("0 0 31 * *").matches(LocalDateTime.of(2026, 1, 31, 0, 0))).isTrue();
        assertThat(parse("0 0 30,31 2,3 *").matches(LocalDateTime.of(2026, 3, 30, 0, 0))).isTrue();
        // both day fields restricted: either may match, so February Mondays make this one possible
        CronPattern either = parse("0 0 31 2 MON");
        assertThat(either.matches(LocalDateTime.of(2026, 2, 2, 0, 0))).isTrue(); // a Monday
        assertThat(either.matches(LocalDateTime.of(2026, 2, 3, 0, 0))).isFalse();
    }
}
