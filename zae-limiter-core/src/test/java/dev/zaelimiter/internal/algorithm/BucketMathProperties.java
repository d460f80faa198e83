package dev.zaelimiter.internal.algorithm;

import dev.zaelimiter.internal.Limits;
import static dev.zaelimiter.internal.algorithm.ExactBucketReference.big;
import static org.assertj.core.api.Assertions.assertThat;

import dev.zaelimiter.Limit;

import java.math.BigInteger;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.LongRange;

/**
 * Property-based tests of {@link BucketMath} against the unbounded-integer model in {@link ExactBucketReference} and
 * against invariants that follow from the definition of a continuous token bucket.
 */
class BucketMathProperties {

    static final long MAX_MILLI = Limit.MAX_TOKENS * Limits.MILLI;
    static final long SECOND = 1_000L;
    static final long DAY = 86_400_000L;
    static final long YEAR = 365 * DAY;
    static final long TEN_YEARS = 3_652 * DAY;
    static final long NOW = 1_735_689_600_000L;

    /**
     * Waits up to this long (about 31,700 years) must be reported exactly. Beyond it a wait may saturate, but it
     * must never be shorter than the truth.
     */
    static final long EXACT_WAIT_HORIZON = 1_000_000_000_000_000L;

    // ---------------------------------------------------------------------------------------------- generators

    @Provide
    Arbitrary<Long> capacities() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(1, 100_000_000)),
                Tuple.of(2, Arbitraries.longs().between(1, Limit.MAX_TOKENS).map(t -> t * Limits.MILLI)),
                Tuple.of(2, Arbitraries.longs().between(1, MAX_MILLI)),
                Tuple.of(1, Arbitraries.of(1L, 1_000L, MAX_MILLI - 1, MAX_MILLI)));
    }

    @Provide
    Arbitrary<Long> amounts() {
        return capacities();
    }

    @Provide
    Arbitrary<Long> periods() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(1, 10_000)),
                Tuple.of(2, Arbitraries.of(1L, 3L, 7L, SECOND, 60 * SECOND, 3_600 * SECOND, DAY, 30 * DAY, YEAR)),
                Tuple.of(2, Arbitraries.longs().between(1, 10 * YEAR)),
                Tuple.of(1, Arbitraries.longs().between(1, Long.MAX_VALUE)));
    }

    /** Instants such that an instant plus an {@link #elapsed()} never overflows. */
    @Provide
    Arbitrary<Long> instants() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(NOW - YEAR, NOW + YEAR)),
                Tuple.of(2, Arbitraries.longs().between(-(1L << 61), 1L << 61)),
                Tuple.of(1, Arbitraries.of(0L, -1L, 1L, -(1L << 61), 1L << 61)));
    }

    @Provide
    Arbitrary<Long> elapsed() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(0, 10_000)),
                Tuple.of(2, Arbitraries.longs().between(0, TEN_YEARS)),
                Tuple.of(1, Arbitraries.longs().between(0, 1L << 61)),
                Tuple.of(1, Arbitraries.of(0L, 1L, TEN_YEARS, 1L << 61)));
    }

    /** Balances from deep debt (4 * 10^18 milli-tokens) to the largest capacity. */
    @Provide
    Arbitrary<Long> balances() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(-100_000, 100_000)),
                Tuple.of(2, Arbitraries.longs().between(-4 * MAX_MILLI, MAX_MILLI)),
                Tuple.of(1, Arbitraries.of(-4 * MAX_MILLI, -MAX_MILLI, -1L, 0L, 1L, MAX_MILLI)));
    }

    @Provide
    Arbitrary<Long> deficits() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(1, 100_000)),
                Tuple.of(2, Arbitraries.longs().between(1, 5 * MAX_MILLI)),
                Tuple.of(1, Arbitraries.of(1L, MAX_MILLI, 2 * MAX_MILLI)));
    }

    @Provide
    Arbitrary<List<Long>> steps() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(0, 50)),
                Tuple.of(1, Arbitraries.longs().between(0, 100_000)),
                Tuple.of(1, Arbitraries.longs().between(0, DAY)))
                .list().ofMinSize(1).ofMaxSize(300);
    }

    // ---------------------------------------------------------------------------------------------- refill

    @Property
    void refillMatchesTheExactModel(@ForAll("balances") long balance, @ForAll("capacities") long capacity,
                                    @ForAll("amounts") long amount, @ForAll("periods") long period,
                                    @ForAll("instants") long last, @ForAll("elapsed") long elapsed) {
        long now = last + elapsed;
        BigInteger expected = ExactBucketReference.refill(balance, capacity, amount, period, last, now);
        assertThat(big(BucketMath.refill(balance, capacity, amount, period, last, now))).isEqualTo(expected);
    }

    @Property
    void refillCreditsTheIdealContinuousAmountWithinOneMilliToken(
            @ForAll("balances") long balance, @ForAll("capacities") long capacity, @ForAll("amounts") long amount,
            @ForAll("periods") long period, @ForAll("instants") long last, @ForAll("elapsed") long elapsed) {
        long got = BucketMath.refill(balance, capacity, amount, period, last, last + elapsed);
        assertThat(got).isLessThanOrEqualTo(capacity);
        if (balance >= capacity) {
            assertThat(got).isEqualTo(capacity);
            return;
        }
        BigInteger e = big(elapsed);
        BigInteger lowest = big(balance).add(ExactBucketReference.idealFloor(e, amount, period));
        BigInteger highest = big(balance).add(ExactBucketReference.idealCeil(e, amount, period));
        assertThat(big(got)).isBetween(lowest.min(big(capacity)), highest.min(big(capacity)));
    }

    @Property
    void refillInTwoStepsEqualsRefillInOne(@ForAll("balances") long balance, @ForAll("capacities") long capacity,
                                          @ForAll("amounts") long amount, @ForAll("periods") long period,
                                          @ForAll("instants") long t0, @ForAll("elapsed") long e1,
                                          @ForAll @LongRange(min = 0, max = 1L << 61) long e2) {
        long t1 = t0 + e1;
        long t2 = t1 + e2;
        long twoSteps = BucketMath.refill(BucketMath.refill(balance, capacity, amount, period, t0, t1), capacity,
                amount, period, t1, t2);
        assertThat(twoSteps).isEqualTo(BucketMath.refill(balance, capacity, amount, period, t0, t2));
    }

    @Property(tries = 300)
    void refillInManyRandomStepsEqualsRefillInOne(@ForAll("balances") long balance,
                                                 @ForAll("capacities") long capacity, @ForAll("amounts") long amount,
                                                 @ForAll("periods") long period, @ForAll("instants") long start,
                                                 @ForAll("steps") List<Long> steps) {
        long b = balance;
        long t = start;
        for (long step : steps) {
            b = BucketMath.refill(b, capacity, amount, period, t, t + step);
            t += step;
        }
        assertThat(b).isEqualTo(BucketMath.refill(balance, capacity, amount, period, start, t));
        assertThat(big(b)).isEqualTo(ExactBucketReference.refill(balance, capacity, amount, period, start, t));
    }

    @Property
    void refillIsMonotoneInTimeAndNeverTakesTokensAway(@ForAll("balances") long balance,
                                                      @ForAll("capacities") long capacity,
                                                      @ForAll("amounts") long amount, @ForAll("periods") long period,
                                                      @ForAll("instants") long last, @ForAll("elapsed") long e1,
                                                      @ForAll @LongRange(min = 0, max = 1_000_000) long e2) {
        long earlier = BucketMath.refill(balance, capacity, amount, period, last, last + e1);
        long later = BucketMath.refill(balance, capacity, amount, period, last, last + e1 + e2);
        assertThat(later).isGreaterThanOrEqualTo(earlier);
        assertThat(earlier).isGreaterThanOrEqualTo(Math.min(balance, capacity));
    }

    @Property
    void aClockThatWentBackwardsRefillsNothing(@ForAll("balances") long balance, @ForAll("capacities") long capacity,
                                              @ForAll("amounts") long amount, @ForAll("periods") long period,
                                              @ForAll long last, @ForAll long now) {
        if (now > last) {
            long swap = now;
            now = last;
            last = swap;
        }
        assertThat(BucketMath.refill(balance, capacity, amount, period, last, now))
                .isEqualTo(Math.min(balance, capacity));
    }

    /** Any two instants in the whole {@code long} range, including spans that do not fit in a {@code long}. */
    @Property
    void refillMatchesTheExactModelAtAnyInstants(@ForAll("balances") long balance,
                                                 @ForAll("capacities") long capacity, @ForAll("amounts") long amount,
                                                 @ForAll("periods") long period, @ForAll long last,
                                                 @ForAll long now) {
        BigInteger expected = ExactBucketReference.refill(balance, capacity, amount, period, last, now);
        assertThat(big(BucketMath.refill(balance, capacity, amount, period, last, now)))
                .as("refill(%d, %d, %d, %d, %d, %d)", balance, capacity, amount, period, last, now)
                .isEqualTo(expected);
    }

    @Property
    void creditedIsTheExactGridCreditSaturated(@ForAll long t0, @ForAll long t1,
                                               @ForAll @LongRange(min = 1) long amount,
                                               @ForAll @LongRange(min = 1) long period) {
        long last = Math.min(t0, t1);
        long now = Math.max(t0, t1);
        assertThat(BucketMath.credited(last, now, amount, period))
                .as("credited(%d, %d, %d, %d)", last, now, amount, period)
                .isEqualTo(ExactBucketReference.clampToLong(ExactBucketReference.credit(last, now, amount, period)));
    }

    @Property
    void gridRemainderIsTheExactModulus(@ForAll long instant, @ForAll @LongRange(min = 1) long amount,
                                        @ForAll @LongRange(min = 1) long period) {
        assertThat(BucketMath.gridRemainder(instant, amount, period))
                .isEqualTo(big(instant).multiply(big(amount)).mod(big(period)).longValueExact());
    }

    // ---------------------------------------------------------------------------------------------- retry after

    @Property
    void retryAfterIsExactAndMinimal(@ForAll("capacities") long needSeed, @ForAll("capacities") long extra,
                                     @ForAll("deficits") long deficit, @ForAll("amounts") long amount,
                                     @ForAll("periods") long period, @ForAll("instants") long at) {
        long need = needSeed;
        long capacity = Math.min(MAX_MILLI, need + extra);
        long balance = need - deficit;
        long got = BucketMath.retryAfterMillis(balance, need, capacity, amount, period, at);
        BigInteger exact = ExactBucketReference.retryAfter(balance, need, amount, period, at);
        String what = String.format("retryAfterMillis(%d, %d, %d, %d, %d, %d), exact %s", balance, need, capacity,
                amount, period, at, exact);

        assertThat(got).as(what).isPositive();
        if (exact.compareTo(big(EXACT_WAIT_HORIZON)) <= 0) {
            assertThat(big(got)).as(what).isEqualTo(exact);
            // the refill itself agrees: after exactly that long the need is covered, one millisecond earlier not
            assertThat(BucketMath.refill(balance, capacity, amount, period, at, at + got)).as(what)
                    .isGreaterThanOrEqualTo(need);
            assertThat(BucketMath.refill(balance, capacity, amount, period, at, at + got - 1)).as(what)
                    .isLessThan(need);
        } else {
            // beyond any clock: may saturate, but never promises too early
            assertThat(big(got)).as(what).isGreaterThanOrEqualTo(exact.min(ExactBucketReference.LONG_MAX));
        }
    }

    @Property
    void retryAfterIsExactAtAnyInstant(@ForAll @LongRange(min = 1, max = 1_000_000) long need,
                                       @ForAll @LongRange(min = 1, max = 1_000_000) long deficit,
                                       @ForAll("amounts") long amount,
                                       @ForAll @LongRange(min = 1, max = 100 * 86_400_000L) long period,
                                       @ForAll long at) {
        long got = BucketMath.retryAfterMillis(need - deficit, need, need, amount, period, at);
        BigInteger exact = ExactBucketReference.retryAfter(need - deficit, need, amount, period, at);
        assertThat(big(got)).isEqualTo(exact);
    }

    @Property
    void retryAfterIsZeroWhenTheBalanceCovers(@ForAll("balances") long balance, @ForAll("deficits") long slack,
                                             @ForAll("capacities") long capacity, @ForAll("amounts") long amount,
                                             @ForAll("periods") long period, @ForAll long at) {
        long need = balance - slack + 1; // need <= balance
        assertThat(BucketMath.retryAfterMillis(balance, need, capacity, amount, period, at)).isZero();
    }

    @Property
    void retryAfterIsNeverWhenTheNeedExceedsTheCapacity(@ForAll("capacities") long capacity,
                                                        @ForAll @LongRange(min = 1) long excess,
                                                        @ForAll("deficits") long deficit,
                                                        @ForAll("amounts") long amount,
                                                        @ForAll("periods") long period, @ForAll long at) {
        long need = BucketMath.saturatedAdd(capacity, excess);
        long balance = Math.min(capacity, need - deficit);
        assertThat(BucketMath.retryAfterMillis(balance, need, capacity, amount, period, at))
                .isEqualTo(BucketMath.NEVER);
    }

    // ---------------------------------------------------------------------------------------------- saturation

    @Property
    void saturatedAddIsTheClampedExactSum(@ForAll long a, @ForAll long b) {
        assertThat(BucketMath.saturatedAdd(a, b)).isEqualTo(ExactBucketReference.clampToLong(big(a).add(big(b))));
    }

    @Property
    void saturatedSubtractIsTheClampedExactDifference(@ForAll long a, @ForAll long b) {
        assertThat(BucketMath.saturatedSubtract(a, b))
                .isEqualTo(ExactBucketReference.clampToLong(big(a).subtract(big(b))));
    }

    @Property
    void addIsTheClampedExactSumCappedAtCapacity(@ForAll long balance, @ForAll long delta,
                                                 @ForAll("capacities") long capacity) {
        long expected = Math.min(capacity, ExactBucketReference.clampToLong(big(balance).add(big(delta))));
        assertThat(BucketMath.add(balance, delta, capacity)).isEqualTo(expected);
    }
}
