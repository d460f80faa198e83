package dev.zaelimiter.internal.algorithm;

import dev.zaelimiter.internal.Limits;
import static dev.zaelimiter.internal.algorithm.ExactBucketReference.big;
import static org.assertj.core.api.Assertions.assertThat;

import dev.zaelimiter.Limit;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Random;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Example-based tests of {@link BucketMath}. Expected values come from the rate arithmetic itself (whole spans of a
 * rate, the {@link ExactBucketReference} model in unbounded integers, or invariants), never from running the code.
 */
class BucketMathTest {

    /** The largest capacity or refill amount a {@link Limit} can have, in milli-tokens. */
    static final long MAX_MILLI = Limit.MAX_TOKENS * Limits.MILLI;

    static final long SECOND = 1_000L;
    static final long MINUTE = 60 * SECOND;
    static final long HOUR = 60 * MINUTE;
    static final long DAY = 24 * HOUR;
    static final long MONTH = 30 * DAY;
    static final long YEAR = 365 * DAY;
    static final long TEN_YEARS = 3_652 * DAY;

    /** A realistic wall clock instant: 2025-01-01T00:00:00Z. */
    static final long NOW = 1_735_689_600_000L;

    static long expectedRefill(long balance, long capacity, long amount, long period, long last, long now) {
        return ExactBucketReference.refill(balance, capacity, amount, period, last, now).longValueExact();
    }

    @Nested
    @DisplayName("refill")
    class Refill {

        @Test
        void isLazyNothingHappensWithoutElapsedTime() {
            assertThat(BucketMath.refill(2_500, 10_000, 1_000, SECOND, NOW, NOW)).isEqualTo(2_500);
        }

        @Test
        void creditsElapsedTimesRateForWholeSpans() {
            // 10 tokens per second = 10 milli-tokens per millisecond
            long amount = 10 * Limits.MILLI;
            assertThat(BucketMath.refill(0, 100_000, amount, SECOND, NOW, NOW + 1)).isEqualTo(10);
            assertThat(BucketMath.refill(0, 100_000, amount, SECOND, NOW, NOW + 250)).isEqualTo(250 * 10);
            assertThat(BucketMath.refill(0, 100_000, amount, SECOND, NOW, NOW + 3 * SECOND)).isEqualTo(3 * amount);
        }

        @Test
        void isContinuousNotStepwiseForSlowRates() {
            // 1 token per minute: after 6 seconds a tenth of a token (100 milli-tokens) is already there
            assertThat(BucketMath.refill(0, 5_000, 1_000, MINUTE, 0, 6 * SECOND)).isEqualTo(100);
            // and it keeps growing every 60 ms by one milli-token
            assertThat(BucketMath.refill(0, 5_000, 1_000, MINUTE, 0, 6 * SECOND + 60)).isEqualTo(101);
        }

        @Test
        void fractionalRateStaysWithinOneMilliTokenOfTheIdealCredit() {
            // 7 tokens per 3 seconds = 7/3 milli-tokens per ms, from a grid-unaligned instant
            long amount = 7_000;
            long period = 3 * SECOND;
            for (long last = NOW; last < NOW + 3; last++) {
                for (long elapsed = 1; elapsed <= 7; elapsed++) {
                    long got = BucketMath.refill(0, 1_000_000, amount, period, last, last + elapsed);
                    BigInteger e = big(elapsed);
                    assertThat(big(got)).isBetween(ExactBucketReference.idealFloor(e, amount, period),
                            ExactBucketReference.idealCeil(e, amount, period));
                    assertThat(got).isEqualTo(expectedRefill(0, 1_000_000, amount, period, last, last + elapsed));
                }
            }
        }

        @Test
        void clampsAtCapacity() {
            assertThat(BucketMath.refill(9_990, 10_000, 1_000, SECOND, NOW, NOW + 9)).isEqualTo(9_999);
            assertThat(BucketMath.refill(9_990, 10_000, 1_000, SECOND, NOW, NOW + 10)).isEqualTo(10_000);
            assertThat(BucketMath.refill(9_990, 10_000, 1_000, SECOND, NOW, NOW + 11)).isEqualTo(10_000);
            assertThat(BucketMath.refill(0, 10_000, 1_000, SECOND, NOW, NOW + DAY)).isEqualTo(10_000);
        }

        @Test
        void aFullBucketStaysFull() {
            assertThat(BucketMath.refill(10_000, 10_000, 1_000, SECOND, NOW, NOW + 5)).isEqualTo(10_000);
        }

        @Test
        void aBalanceAboveALoweredCapacityIsClipped() {
            assertThat(BucketMath.refill(50_000, 10_000, 1_000, SECOND, NOW, NOW + 5)).isEqualTo(10_000);
            assertThat(BucketMath.refill(50_000, 10_000, 1_000, SECOND, NOW, NOW)).isEqualTo(10_000);
        }

        @Test
        void climbsOutOfDebt() {
            // 1 token per second = 1 milli-token per ms, 5 tokens in debt
            long debt = -5_000;
            assertThat(BucketMath.refill(debt, 3_000, 1_000, SECOND, NOW, NOW + 1)).isEqualTo(debt + 1);
            assertThat(BucketMath.refill(debt, 3_000, 1_000, SECOND, NOW, NOW + 4_999)).isEqualTo(-1);
            assertThat(BucketMath.refill(debt, 3_000, 1_000, SECOND, NOW, NOW + 5_000)).isZero();
            assertThat(BucketMath.refill(debt, 3_000, 1_000, SECOND, NOW, NOW + 7_500)).isEqualTo(2_500);
            assertThat(BucketMath.refill(debt, 3_000, 1_000, SECOND, NOW, NOW + 8_000)).isEqualTo(3_000);
            assertThat(BucketMath.refill(debt, 3_000, 1_000, SECOND, NOW, NOW + 1_000_000)).isEqualTo(3_000);
        }

        @Test
        void climbsOutOfTheDeepestPossibleDebtWithoutWrapping() {
            // the balance saturated at Long.MIN_VALUE (debits saturate): refill must never wrap around
            long cap = MAX_MILLI;
            assertThat(BucketMath.refill(Long.MIN_VALUE, cap, 1_000, SECOND, NOW, NOW + 1_000))
                    .isEqualTo(Long.MIN_VALUE + 1_000);
            long prev = Long.MIN_VALUE;
            for (long elapsed : new long[] {1, SECOND, DAY, YEAR, TEN_YEARS}) {
                long got = BucketMath.refill(Long.MIN_VALUE, cap, MAX_MILLI, 1, NOW, NOW + elapsed);
                assertThat(got).isBetween(prev, cap);
                prev = got;
            }
            // ten years at the highest rate credits far more than the whole long range: the bucket is full
            assertThat(prev).isEqualTo(cap);
        }
    }

    @Nested
    @DisplayName("refill without overflow")
    class Overflow {

        @Test
        void maximalBucketIdleForTenYearsIsExactlyFull() {
            assertThat(BucketMath.refill(0, MAX_MILLI, MAX_MILLI, 1, NOW, NOW + TEN_YEARS)).isEqualTo(MAX_MILLI);
            assertThat(BucketMath.refill(-MAX_MILLI, MAX_MILLI, MAX_MILLI, 1, NOW, NOW + TEN_YEARS))
                    .isEqualTo(MAX_MILLI);
            assertThat(BucketMath.refill(Long.MIN_VALUE, MAX_MILLI, MAX_MILLI, 1, NOW, NOW + TEN_YEARS))
                    .isEqualTo(MAX_MILLI);
        }

        @Test
        void largeProductsAreExactNotClamped() {
            // amount * elapsed = 10^18 * 1000 overflows a long, but the credit (about 1.16 * 10^13) does not
            long amount = MAX_MILLI;
            long period = DAY;
            long got = BucketMath.refill(0, MAX_MILLI, amount, period, 0, 1_000);
            BigInteger exact = big(1_000).multiply(big(amount)).divide(big(period));
            assertThat(big(got)).isEqualTo(exact);
            // the same from a grid-unaligned wall clock instant
            assertThat(BucketMath.refill(0, MAX_MILLI, amount, period, NOW + 17, NOW + 17 + 1_000))
                    .isEqualTo(expectedRefill(0, MAX_MILLI, amount, period, NOW + 17, NOW + 17 + 1_000));
        }

        @Test
        void maximalDebtClimbsExactlyAtTheMaximalRate() {
            // 10^18 milli-tokens per day: half a day repays exactly half of a 10^18 debt
            assertThat(BucketMath.refill(-MAX_MILLI, MAX_MILLI, MAX_MILLI, DAY, 0, DAY / 2))
                    .isEqualTo(-MAX_MILLI / 2);
            assertThat(BucketMath.refill(-MAX_MILLI, MAX_MILLI, MAX_MILLI, DAY, 0, DAY)).isZero();
            assertThat(BucketMath.refill(-MAX_MILLI, MAX_MILLI, MAX_MILLI, DAY, 0, 2 * DAY)).isEqualTo(MAX_MILLI);
            // one millisecond with 10^18 per ms from 10^18 in debt: exactly zero
            assertThat(BucketMath.refill(-MAX_MILLI, MAX_MILLI, MAX_MILLI, 1, NOW, NOW + 1)).isZero();
        }

        @Test
        void monthlyLimitIdleForTenYears() {
            // 1 token per 30 days, capacity 1000 tokens: 3652 days earn 3652 / 30 tokens, far below capacity
            long got = BucketMath.refill(0, 1_000_000, 1_000, MONTH, NOW, NOW + TEN_YEARS);
            BigInteger exact = big(TEN_YEARS).multiply(big(1_000)).divide(big(MONTH));
            assertThat(big(got)).isBetween(exact, exact.add(BigInteger.ONE));
            assertThat(got).isEqualTo(expectedRefill(0, 1_000_000, 1_000, MONTH, NOW, NOW + TEN_YEARS));
        }

        @ParameterizedTest(name = "period {0} ms")
        @CsvSource({"1", "1000", "86400000", "2592000000", "31536000000", "4611686018427387904",
                "9223372036854775806", "9223372036854775807"})
        void anyPeriodWithTheLargestAmountAndALongIdleTime(long period) {
            for (long last : new long[] {NOW, NOW + 1, -NOW, 0}) {
                for (long elapsed : new long[] {1, 999, TEN_YEARS, 1L << 61}) {
                    long got = BucketMath.refill(-MAX_MILLI, MAX_MILLI, MAX_MILLI, period, last, last + elapsed);
                    assertThat(got).isEqualTo(expectedRefill(-MAX_MILLI, MAX_MILLI, MAX_MILLI, period, last,
                            last + elapsed));
                }
            }
        }

        @Test
        void extremeInstantsNearTheEndsOfTheLongRange() {
            long amount = 1_000;
            long cap = 1_000_000;
            assertThat(BucketMath.refill(0, cap, amount, SECOND, Long.MIN_VALUE, Long.MIN_VALUE + 1_000))
                    .isEqualTo(1_000);
            assertThat(BucketMath.refill(0, cap, amount, SECOND, Long.MAX_VALUE - 1_000, Long.MAX_VALUE))
                    .isEqualTo(1_000);
            assertThat(BucketMath.refill(0, cap, 7_000, 3 * SECOND, Long.MAX_VALUE - 1_000, Long.MAX_VALUE))
                    .isEqualTo(expectedRefill(0, cap, 7_000, 3 * SECOND, Long.MAX_VALUE - 1_000, Long.MAX_VALUE));
            assertThat(BucketMath.refill(0, cap, 7_000, 3 * SECOND, Long.MIN_VALUE, Long.MIN_VALUE + 1_000))
                    .isEqualTo(expectedRefill(0, cap, 7_000, 3 * SECOND, Long.MIN_VALUE, Long.MIN_VALUE + 1_000));
        }

        @Test
        void elapsedTimeBeyondTheLongRangeFillsTheBucket() {
            // now - last does not fit in a long; the bucket has been idle for ~292 million years in each case and
            // must simply be full (never less than it was)
            long cap = 1_000_000;
            assertThat(BucketMath.refill(0, cap, 1_000, SECOND, Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(cap);
            assertThat(BucketMath.refill(0, cap, 1_000, SECOND, -1, Long.MAX_VALUE)).isEqualTo(cap);
            assertThat(BucketMath.refill(500, cap, 1_000, SECOND, -NOW, Long.MAX_VALUE)).isEqualTo(cap);
            assertThat(BucketMath.refill(-5_000, cap, 1_000, DAY, Long.MIN_VALUE, 1)).isEqualTo(cap);
        }

        @Test
        void creditedSaturatesInsteadOfWrapping() {
            // credited(last, now, amount, period): the whole milli-tokens earned between two instants
            assertThat(BucketMath.credited(0, Long.MAX_VALUE, Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
            assertThat(BucketMath.credited(Long.MIN_VALUE, Long.MAX_VALUE, MAX_MILLI, 1)).isEqualTo(Long.MAX_VALUE);
            // 2^64 - 1 milli-tokens at one per ms: beyond the long range
            assertThat(BucketMath.credited(Long.MIN_VALUE, Long.MAX_VALUE, 1, 1)).isEqualTo(Long.MAX_VALUE);
            // exactly the largest long: MAX * 2 / 2
            assertThat(BucketMath.credited(0, Long.MAX_VALUE, 2, 2)).isEqualTo(Long.MAX_VALUE);
            // spans that do not fit in a long but credit little are still exact
            long[][] cases = {
                    {-1, Long.MAX_VALUE, 1, Long.MAX_VALUE},
                    {Long.MIN_VALUE, Long.MAX_VALUE, 3, Long.MAX_VALUE},
                    {Long.MIN_VALUE, 1, 1_000, 1L << 62},
                    {-NOW, Long.MAX_VALUE, 7_000, Long.MAX_VALUE - 2}};
            for (long[] c : cases) {
                assertThat(BucketMath.credited(c[0], c[1], c[2], c[3])).as("credited(%d, %d, %d, %d)", c[0], c[1],
                        c[2], c[3]).isEqualTo(ExactBucketReference.credit(c[0], c[1], c[2], c[3]).longValueExact());
            }
        }

        @Test
        void gridRemainderIsExactForExtremeInstantsAndPeriods() {
            long[] instants = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -NOW, -1, 0, 1, NOW, Long.MAX_VALUE - 1,
                    Long.MAX_VALUE};
            long[] amounts = {1, 999, 1_000, 7_000, MAX_MILLI, Long.MAX_VALUE};
            long[] periods = {1, 3, 1_000, DAY, YEAR, 1L << 62, Long.MAX_VALUE};
            for (long instant : instants) {
                for (long amount : amounts) {
                    for (long period : periods) {
                        long expected = big(instant).multiply(big(amount)).mod(big(period)).longValueExact();
                        assertThat(BucketMath.gridRemainder(instant, amount, period))
                                .as("(%d * %d) mod %d", instant, amount, period).isEqualTo(expected);
                    }
                }
            }
        }
    }

    @Nested
    @DisplayName("refill loses nothing to rounding")
    class Rounding {

        static final int STEPS = 1_000_000;

        /** amount (milli-tokens) per period (ms) pairs that are not whole milli-tokens per millisecond. */
        static final long[][] RATES = {
                {7_000, 3 * SECOND},          // 7 tokens per 3 s = 2.333... milli-tokens per ms
                {5_000, 2 * SECOND},          // 2.5 tokens per s
                {1_000, DAY},                 // 1 token per day
                {1_000, HOUR},                // 1 token per hour
                {3_000, 7},                   // 3 tokens per 7 ms = 428.57... milli-tokens per ms
                {1, 3},                       // one milli-token per 3 ms
                {999_999_000, 86_400_001},    // awkward coprime numbers
        };

        @Test
        void aMillionOneMillisecondStepsCreditExactlyWhatOneStepCredits() {
            for (long[] rate : RATES) {
                for (long start : new long[] {0, NOW + 1, -NOW - 2}) {
                    assertStepsMatchOneStep(rate[0], rate[1], start, () -> 1);
                }
            }
        }

        @Test
        void aMillionRandomStepsCreditExactlyWhatOneStepCredits() {
            Random random = new Random(20_250_101L);
            for (long[] rate : RATES) {
                assertStepsMatchOneStep(rate[0], rate[1], NOW + random.nextInt(1_000),
                        () -> random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(random.nextBoolean() ? 3 : 200));
            }
        }

        @Test
        void wholePeriodsOfTinyStepsCreditExactlyTheRefillAmount() {
            // from any start, N whole periods earn exactly N * amount: the fractional parts cannot drift
            for (long[] rate : new long[][] {{7_000, 3 * SECOND}, {5_000, 2 * SECOND}, {3_000, 7}, {1, 3}}) {
                long amount = rate[0];
                long period = rate[1];
                for (long start : new long[] {0, 1, NOW + 2, -NOW - 1}) {
                    long periods = Math.max(1, 600_000 / period);
                    long balance = 0;
                    long t = start;
                    for (long i = 0; i < periods * period; i++) {
                        balance = BucketMath.refill(balance, Long.MAX_VALUE, amount, period, t, t + 1);
                        t++;
                    }
                    assertThat(balance).as("%d periods of %d/%d from %d", periods, amount, period, start)
                            .isEqualTo(periods * amount);
                }
            }
        }

        @Test
        void oneTokenPerDayOverAFullDayOfMillisecondSteps() {
            long balance = 0;
            long t = NOW + 12_345;
            for (int i = 0; i < 1_000_000; i++) {
                balance = BucketMath.refill(balance, 10_000, 1_000, DAY, t, t + 1);
                t++;
            }
            // one million ms of a 1 token/day rate: floor or ceiling of 10^9 / (86.4 * 10^6) milli-tokens
            assertThat(balance).isBetween(11L, 12L);
            // and the remainder of the day in one step must add up to exactly one token
            balance = BucketMath.refill(balance, 10_000, 1_000, DAY, t, NOW + 12_345 + DAY);
            assertThat(balance).isEqualTo(1_000);
        }

        private void assertStepsMatchOneStep(long amount, long period, long start, LongSupplier steps) {
            long capacity = MAX_MILLI;
            long initial = -MAX_MILLI / 2; // deep enough in debt that the capacity never clips
            long balance = initial;
            long t = start;
            for (int i = 0; i < STEPS; i++) {
                long next = t + steps.getAsLong();
                balance = BucketMath.refill(balance, capacity, amount, period, t, next);
                t = next;
            }
            long oneStep = BucketMath.refill(initial, capacity, amount, period, start, t);
            assertThat(balance).as("%d steps of %d/%d from %d to %d", STEPS, amount, period, start, t)
                    .isEqualTo(oneStep);
            BigInteger credit = big(balance).subtract(big(initial));
            assertThat(credit).isEqualTo(ExactBucketReference.credit(start, t, amount, period));
            BigInteger span = big(t).subtract(big(start));
            assertThat(credit).isBetween(ExactBucketReference.idealFloor(span, amount, period),
                    ExactBucketReference.idealCeil(span, amount, period));
        }
    }

    @Nested
    @DisplayName("a clock that goes backwards")
    class BackwardsClock {

        @Test
        void refillsNothing() {
            assertThat(BucketMath.refill(2_000, 10_000, 1_000, SECOND, NOW, NOW - 1)).isEqualTo(2_000);
            assertThat(BucketMath.refill(2_000, 10_000, 1_000, SECOND, NOW, NOW - DAY)).isEqualTo(2_000);
            assertThat(BucketMath.refill(2_000, 10_000, 1_000, SECOND, NOW, Long.MIN_VALUE)).isEqualTo(2_000);
            assertThat(BucketMath.refill(-7_000, 10_000, MAX_MILLI, 1, Long.MAX_VALUE, Long.MIN_VALUE))
                    .isEqualTo(-7_000);
        }

        @Test
        void neverTakesTokensAway() {
            // a debt stays the same debt, a partial balance stays, whatever the rate's phase on the grid
            for (long back = 1; back <= 10; back++) {
                assertThat(BucketMath.refill(-1, 10_000, 7_000, 3 * SECOND, NOW + 1, NOW + 1 - back)).isEqualTo(-1);
            }
        }
    }

    @Nested
    @DisplayName("retryAfterMillis")
    class RetryAfter {

        @Test
        void zeroWhenTheBalanceAlreadyCovers() {
            assertThat(BucketMath.retryAfterMillis(5_000, 5_000, 10_000, 1_000, SECOND, NOW)).isZero();
            assertThat(BucketMath.retryAfterMillis(5_000, 1, 10_000, 1_000, SECOND, NOW)).isZero();
            assertThat(BucketMath.retryAfterMillis(0, 0, 10_000, 1_000, SECOND, NOW)).isZero();
            assertThat(BucketMath.retryAfterMillis(10_000, 10_000, 10_000, 1, DAY, NOW)).isZero();
        }

        @Test
        void neverWhenTheNeedExceedsTheCapacity() {
            assertThat(BucketMath.retryAfterMillis(0, 10_001, 10_000, 1_000, SECOND, NOW))
                    .isEqualTo(BucketMath.NEVER);
            assertThat(BucketMath.retryAfterMillis(Long.MIN_VALUE, 10_001, 10_000, 1_000, SECOND, NOW))
                    .isEqualTo(BucketMath.NEVER);
            assertThat(BucketMath.retryAfterMillis(9_999, Long.MAX_VALUE, 10_000, MAX_MILLI, 1, NOW))
                    .isEqualTo(BucketMath.NEVER);
            assertThat(BucketMath.retryAfterMillis(0, MAX_MILLI + 1, MAX_MILLI, MAX_MILLI, 1, NOW))
                    .isEqualTo(BucketMath.NEVER);
            assertThat(BucketMath.NEVER).isEqualTo(Long.MAX_VALUE);
        }

        @Test
        void wholeRateExamples() {
            // 1 token per second (1 milli-token per ms), empty: one token takes exactly one second
            assertThat(BucketMath.retryAfterMillis(0, 1_000, 10_000, 1_000, SECOND, NOW)).isEqualTo(SECOND);
            // 3 tokens in debt, need 2: five seconds
            assertThat(BucketMath.retryAfterMillis(-3_000, 2_000, 10_000, 1_000, SECOND, NOW)).isEqualTo(5 * SECOND);
            // 100 tokens per minute, need one token from empty: 0.6 s
            assertThat(BucketMath.retryAfterMillis(0, 1_000, 100_000, 100_000, MINUTE, 0)).isEqualTo(600);
            // one milli-token short at 1 token per day: 86.4 s
            assertThat(BucketMath.retryAfterMillis(999, 1_000, 1_000, 1_000, DAY, 0)).isEqualTo(DAY / 1_000);
        }

        @Test
        void exactAndMinimalForFractionalRatesAtEveryGridPhase() {
            long[][] rates = {{7_000, 3 * SECOND}, {5_000, 2 * SECOND}, {1_000, DAY}, {3_000, 7}, {1, 3},
                    {999_999_000, 86_400_001}};
            for (long[] rate : rates) {
                long amount = rate[0];
                long period = rate[1];
                for (long at = NOW; at < NOW + 12; at++) {
                    for (long need : new long[] {1, 2, 3, 999, 1_000, 1_001, 7_000}) {
                        for (long balance : new long[] {need - 1, 0, -1, -12_345}) {
                            assertExactAndMinimal(balance, need, 1_000_000, amount, period, at);
                        }
                    }
                }
            }
        }

        @Test
        void exactForTheLargestValuesWithoutWrapping() {
            // a full 10^15-token bucket from 10^15 tokens in debt at one token per month: a very long wait
            long got = BucketMath.retryAfterMillis(-MAX_MILLI, MAX_MILLI, MAX_MILLI, 1_000, MONTH, NOW);
            assertThat(got).isPositive();
            BigInteger exact = ExactBucketReference.retryAfter(-MAX_MILLI, MAX_MILLI, 1_000, MONTH, NOW);
            assertThat(got).isEqualTo(exact.min(ExactBucketReference.LONG_MAX).longValueExact());
            // the fastest rate: 10^18 per ms repays a 10^18 debt and fills 10^18 in two milliseconds
            assertThat(BucketMath.retryAfterMillis(-MAX_MILLI, MAX_MILLI, MAX_MILLI, MAX_MILLI, 1, NOW))
                    .isEqualTo(2);
            assertExactAndMinimal(-MAX_MILLI, MAX_MILLI, MAX_MILLI, MAX_MILLI, DAY, NOW + 3);
            assertExactAndMinimal(-MAX_MILLI, MAX_MILLI, MAX_MILLI, 7_000, 3 * SECOND, NOW + 3);
        }

        @Test
        void exactAtExtremeInstants() {
            for (long at : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, Long.MAX_VALUE - DAY}) {
                assertExactAndMinimal(0, 1_000, 10_000, 7_000, 3 * SECOND, at);
                assertExactAndMinimal(-3, 1, 10_000, 1_000, DAY, at);
            }
        }

        @Test
        void exactForWaitsFarBeyondAnyClockButStillWithinTheLongRange() {
            // 1 milli-token per ms, 4 * 10^18 in debt, need 10^18: the exact wait, 5 * 10^18 ms, is a valid long
            // and smaller than NEVER; it must be reported as such, not as NEVER ("can never be available")
            long balance = -4 * MAX_MILLI;
            long need = MAX_MILLI;
            BigInteger exact = ExactBucketReference.retryAfter(balance, need, 1_000, SECOND, 0);
            assertThat(exact).isEqualTo(big(5 * MAX_MILLI));
            assertThat(BucketMath.retryAfterMillis(balance, need, MAX_MILLI, 1_000, SECOND, 0))
                    .isEqualTo(5 * MAX_MILLI);
        }

        private void assertExactAndMinimal(long balance, long need, long capacity, long amount, long period, long at) {
            long got = BucketMath.retryAfterMillis(balance, need, capacity, amount, period, at);
            String what = String.format("balance %d need %d capacity %d rate %d/%d at %d", balance, need, capacity,
                    amount, period, at);
            BigInteger exact = ExactBucketReference.retryAfter(balance, need, amount, period, at);
            assertThat(got).as(what).isEqualTo(exact.min(ExactBucketReference.LONG_MAX).longValueExact());
            BigInteger at1 = big(at).add(big(got));
            if (got > 0 && got < BucketMath.NEVER && at1.compareTo(ExactBucketReference.LONG_MAX) <= 0) {
                assertThat(BucketMath.refill(balance, capacity, amount, period, at, at + got)).as(what)
                        .isGreaterThanOrEqualTo(need);
                assertThat(BucketMath.refill(balance, capacity, amount, period, at, at + got - 1)).as(what)
                        .isLessThan(need);
            }
        }
    }

    @Nested
    @DisplayName("saturating arithmetic")
    class Saturating {

        static final long[] EDGES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MIN_VALUE / 2, -MAX_MILLI, -2, -1, 0,
                1, 2, MAX_MILLI, Long.MAX_VALUE / 2, Long.MAX_VALUE - 1, Long.MAX_VALUE};

        @Test
        void saturatedAddAtTheLongBoundaries() {
            assertThat(BucketMath.saturatedAdd(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
            assertThat(BucketMath.saturatedAdd(Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
            assertThat(BucketMath.saturatedAdd(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
            assertThat(BucketMath.saturatedAdd(Long.MIN_VALUE, Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
            assertThat(BucketMath.saturatedAdd(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(-1);
            assertThat(BucketMath.saturatedAdd(Long.MAX_VALUE, -1)).isEqualTo(Long.MAX_VALUE - 1);
            for (long a : EDGES) {
                for (long b : EDGES) {
                    assertThat(BucketMath.saturatedAdd(a, b)).as("%d + %d", a, b)
                            .isEqualTo(ExactBucketReference.clampToLong(big(a).add(big(b))));
                }
            }
        }

        @Test
        void saturatedSubtractAtTheLongBoundaries() {
            assertThat(BucketMath.saturatedSubtract(Long.MIN_VALUE, 1)).isEqualTo(Long.MIN_VALUE);
            assertThat(BucketMath.saturatedSubtract(0, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
            assertThat(BucketMath.saturatedSubtract(-1, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
            assertThat(BucketMath.saturatedSubtract(-2, Long.MAX_VALUE)).isEqualTo(Long.MIN_VALUE);
            assertThat(BucketMath.saturatedSubtract(Long.MAX_VALUE, -1)).isEqualTo(Long.MAX_VALUE);
            assertThat(BucketMath.saturatedSubtract(Long.MIN_VALUE, Long.MIN_VALUE)).isZero();
            for (long a : EDGES) {
                for (long b : EDGES) {
                    assertThat(BucketMath.saturatedSubtract(a, b)).as("%d - %d", a, b)
                            .isEqualTo(ExactBucketReference.clampToLong(big(a).subtract(big(b))));
                }
            }
        }

        @Test
        void addNeverExceedsCapacityAndNeverWraps() {
            assertThat(BucketMath.add(5_000, 2_000, 10_000)).isEqualTo(7_000);
            assertThat(BucketMath.add(5_000, 6_000, 10_000)).isEqualTo(10_000);
            assertThat(BucketMath.add(5_000, -6_000, 10_000)).isEqualTo(-1_000);
            assertThat(BucketMath.add(Long.MAX_VALUE - 1, 10, MAX_MILLI)).isEqualTo(MAX_MILLI);
            assertThat(BucketMath.add(Long.MIN_VALUE + 1, -10, MAX_MILLI)).isEqualTo(Long.MIN_VALUE);
            assertThat(BucketMath.add(MAX_MILLI, Long.MAX_VALUE, MAX_MILLI)).isEqualTo(MAX_MILLI);
            for (long a : EDGES) {
                for (long b : EDGES) {
                    long expected = Math.min(MAX_MILLI, ExactBucketReference.clampToLong(big(a).add(big(b))));
                    assertThat(BucketMath.add(a, b, MAX_MILLI)).as("%d + %d", a, b).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void limitFactoriesFeedTheMathInMilliTokens() {
        // the bridge the stores use: a Limit's milli-token view drives the math to the rate the Limit promises
        Limit tpm = Limit.perMinute("tpm", 6_000).withBurst(10_000);
        long got = BucketMath.refill(0, Limits.capacityMilli(tpm), Limits.refillAmountMilli(tpm), Limits.refillPeriodMillis(tpm),
                NOW, NOW + 30 * SECOND);
        assertThat(got).isEqualTo(3_000 * Limits.MILLI); // half a minute of 6000/min
        Limit custom = Limit.custom("jobs", 7, 7, Duration.ofSeconds(3));
        assertThat(BucketMath.refill(0, Limits.capacityMilli(custom), Limits.refillAmountMilli(custom),
                Limits.refillPeriodMillis(custom), 0, 3 * SECOND)).isEqualTo(7 * Limits.MILLI);
    }

    @Test
    @DisplayName("multiplyDivide is floor(a * b / divisor), exact past 63 bits, saturating past the long range")
    void multiplyDivideIsExactAndSaturates() {
        assertThat(BucketMath.multiplyDivide(7, 10, 3)).isEqualTo(23);
        long a = MAX_MILLI;
        long b = TEN_YEARS;
        long divisor = TEN_YEARS - 1;
        assertThat(Math.multiplyHigh(a, b)).as("the product needs more than 63 bits").isNotZero();
        assertThat(BucketMath.multiplyDivide(a, b, divisor)).isEqualTo(
                big(a).multiply(big(b)).divide(big(divisor)).longValueExact());
        assertThat(BucketMath.multiplyDivide(Long.MAX_VALUE, Long.MAX_VALUE, 2)).isEqualTo(Long.MAX_VALUE);
    }
}
