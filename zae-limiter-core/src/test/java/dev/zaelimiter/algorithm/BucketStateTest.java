package dev.zaelimiter.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zaelimiter.Limit;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class BucketStateTest {

    static final long NOW = 1_735_689_600_000L;

    /** 10 per second: capacity 10,000 milli-tokens, 10 milli-tokens per ms. */
    static final Limit RPS = Limit.perSecond("rps", 10);
    /** 6,000 per minute, burst 12,000: 100 milli-tokens per ms. */
    static final Limit TPM = Limit.perMinute("tpm", 6_000).withBurst(12_000);
    /** 100 per day, soft. */
    static final Limit DAILY = Limit.perDay("daily", 100).soft();

    static final List<Limit> LIMITS = List.of(RPS, TPM, DAILY);

    /** Milli-tokens a limit earns over {@code elapsed} ms, for spans where the rate divides exactly. */
    static long earned(Limit limit, long elapsed) {
        long numerator = elapsed * limit.refillAmountMilli();
        assertThat(numerator % limit.refillPeriodMillis()).as("test spans are whole milli-tokens").isZero();
        return numerator / limit.refillPeriodMillis();
    }

    static BucketState state(long last, Object... nameBalanceConsumed) {
        Map<String, LimitState> limits = new HashMap<>();
        for (int i = 0; i < nameBalanceConsumed.length; i += 3) {
            long balance = ((Number) nameBalanceConsumed[i + 1]).longValue();
            long consumed = ((Number) nameBalanceConsumed[i + 2]).longValue();
            limits.put((String) nameBalanceConsumed[i], new LimitState(balance, consumed));
        }
        return new BucketState(last, limits);
    }

    @Nested
    class Fresh {

        @Test
        void everyLimitStartsFullWithNothingConsumed() {
            BucketState fresh = BucketState.fresh(LIMITS, NOW);
            assertThat(fresh.lastRefillMillis()).isEqualTo(NOW);
            assertThat(fresh.limits()).containsOnlyKeys("rps", "tpm", "daily");
            for (Limit limit : LIMITS) {
                assertThat(fresh.limits().get(limit.name()))
                        .isEqualTo(new LimitState(limit.capacity() * Limit.MILLI, 0));
                assertThat(fresh.balanceMilli(limit.name())).isEqualTo(limit.capacity() * Limit.MILLI);
            }
            assertThat(fresh.isFull(LIMITS)).isTrue();
        }

        @Test
        void theLargestLimitStartsFull() {
            Limit huge = Limit.custom("huge", Limit.MAX_TOKENS, Limit.MAX_TOKENS, Duration.ofDays(30));
            BucketState fresh = BucketState.fresh(List.of(huge), NOW);
            assertThat(fresh.balanceMilli("huge")).isEqualTo(1_000_000_000_000_000_000L);
            assertThat(fresh.isFull(List.of(huge))).isTrue();
        }

        @Test
        void isImmutable() {
            Map<String, LimitState> source = new HashMap<>();
            source.put("rps", new LimitState(1, 2));
            BucketState state = new BucketState(NOW, source);
            source.put("rps", new LimitState(99, 99));
            source.put("tpm", new LimitState(99, 99));
            assertThat(state.limits()).containsExactly(Map.entry("rps", new LimitState(1, 2)));
            assertThatThrownBy(() -> state.limits().put("x", new LimitState(0, 0)))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class Refilled {

        @Test
        void creditsEveryLimitAtItsOwnRateAndMovesTheInstant() {
            BucketState state = state(NOW, "rps", 0, 10_000, "tpm", 6_000_000, 6_000_000, "daily", -500, 100_500);
            BucketState refilled = state.refilled(LIMITS, NOW + 600);
            assertThat(refilled.lastRefillMillis()).isEqualTo(NOW + 600);
            assertThat(refilled.balanceMilli("rps")).isEqualTo(earned(RPS, 600));
            assertThat(refilled.balanceMilli("tpm")).isEqualTo(6_000_000 + earned(TPM, 600));
            // 100 per day: 864,000 ms per token, so 600 ms is less than one milli-token (864 ms)
            assertThat(refilled.balanceMilli("daily")).isEqualTo(-500);
            assertThat(state.refilled(LIMITS, NOW + 864).balanceMilli("daily")).isEqualTo(-499);
        }

        @Test
        void neverAboveCapacity() {
            BucketState state = state(NOW, "rps", 9_000, 1_000, "tpm", 0, 12_000_000, "daily", 0, 100_000);
            BucketState refilled = state.refilled(LIMITS, NOW + 10 * 86_400_000L);
            for (Limit limit : LIMITS) {
                assertThat(refilled.balanceMilli(limit.name())).isEqualTo(limit.capacityMilli());
            }
            assertThat(refilled.isFull(LIMITS)).isTrue();
        }

        @Test
        void climbsOutOfDebt() {
            BucketState state = state(NOW, "rps", -20_000, 30_000);
            assertThat(state.refilled(List.of(RPS), NOW + 1_000).balanceMilli("rps")).isEqualTo(-20_000
                    + earned(RPS, 1_000));
            assertThat(state.refilled(List.of(RPS), NOW + 2_000).balanceMilli("rps")).isZero();
            assertThat(state.refilled(List.of(RPS), NOW + 2_500).balanceMilli("rps")).isEqualTo(5_000);
        }

        @Test
        void addsANewLimitFull() {
            BucketState state = BucketState.fresh(List.of(RPS), NOW).debited(LIMITS, Map.of("rps", 4_000L), false);
            BucketState refilled = state.refilled(List.of(RPS, TPM), NOW + 100);
            assertThat(refilled.limits().get("tpm")).isEqualTo(new LimitState(TPM.capacityMilli(), 0));
            assertThat(refilled.limits().get("rps")).isEqualTo(new LimitState(6_000 + earned(RPS, 100), 4_000));
        }

        @Test
        void dropsALimitTheConfigurationNoLongerHas() {
            BucketState state = BucketState.fresh(LIMITS, NOW);
            BucketState refilled = state.refilled(List.of(RPS), NOW + 100);
            assertThat(refilled.limits()).containsOnlyKeys("rps");
            assertThat(refilled.balanceMilli("tpm")).isZero();
            assertThat(refilled.isFull(List.of(RPS))).isTrue();
        }

        @Test
        void clipsABalanceAboveALoweredCapacity() {
            BucketState state = BucketState.fresh(List.of(TPM), NOW); // 12,000 tokens
            Limit lowered = TPM.withBurst(1_000);
            for (long now : new long[] {NOW, NOW + 1, NOW + 60_000, NOW - 5_000}) {
                BucketState refilled = state.refilled(List.of(lowered), now);
                assertThat(refilled.balanceMilli("tpm")).as("at %d", now).isEqualTo(lowered.capacityMilli());
                assertThat(refilled.isFull(List.of(lowered))).isTrue();
            }
        }

        @Test
        void usesTheNewRateOfAChangedLimit() {
            BucketState state = state(NOW, "rps", 0, 0);
            Limit faster = Limit.perSecond("rps", 100).withBurst(1_000);
            assertThat(state.refilled(List.of(faster), NOW + 1_000).balanceMilli("rps"))
                    .isEqualTo(earned(faster, 1_000));
        }

        @Test
        void neverTouchesConsumption() {
            BucketState state = state(NOW, "rps", -3_000, 13_000, "tpm", 0, 12_000_000, "daily", 50, -7);
            BucketState refilled = state.refilled(LIMITS, NOW + 123_456);
            assertThat(refilled.limits().get("rps").consumedMilli()).isEqualTo(13_000);
            assertThat(refilled.limits().get("tpm").consumedMilli()).isEqualTo(12_000_000);
            assertThat(refilled.limits().get("daily").consumedMilli()).isEqualTo(-7);
        }

        @Test
        void aClockThatWentBackwardsRefillsNothingAndKeepsTheLaterInstant() {
            BucketState state = state(NOW, "rps", 1_000, 9_000, "tpm", -50, 50);
            List<Limit> limits = List.of(RPS, TPM);
            BucketState back = state.refilled(limits, NOW - 2_000);
            assertThat(back.lastRefillMillis()).isEqualTo(NOW);
            assertThat(back.limits()).isEqualTo(state.limits());
            BucketState farBack = state.refilled(limits, Long.MIN_VALUE);
            assertThat(farBack.lastRefillMillis()).isEqualTo(NOW);
            assertThat(farBack.limits()).isEqualTo(state.limits());

            // once the clock is back past the last refill, exactly the time since NOW is credited (not since the
            // earlier reading, and nothing twice)
            BucketState resumed = back.refilled(limits, NOW + 300);
            assertThat(resumed.lastRefillMillis()).isEqualTo(NOW + 300);
            assertThat(resumed.balanceMilli("rps")).isEqualTo(1_000 + earned(RPS, 300));
            assertThat(resumed.balanceMilli("tpm")).isEqualTo(-50 + earned(TPM, 300));
            assertThat(resumed).isEqualTo(state.refilled(limits, NOW + 300));
        }
    }

    @Nested
    class Admits {

        @Test
        void aHardLimitAdmitsExactlyItsBalance() {
            BucketState state = state(NOW, "rps", 3_000, 0);
            assertThat(state.admits(List.of(RPS), Map.of("rps", 3_000L))).isTrue();
            assertThat(state.admits(List.of(RPS), Map.of("rps", 2_999L))).isTrue();
            assertThat(state.admits(List.of(RPS), Map.of("rps", 3_001L))).isFalse();
        }

        @Test
        void allOrNothingOverSeveralHardLimits() {
            BucketState state = state(NOW, "rps", 3_000, 0, "tpm", 100_000, 0);
            List<Limit> limits = List.of(RPS, TPM);
            assertThat(state.admits(limits, Map.of("rps", 1_000L, "tpm", 100_000L))).isTrue();
            assertThat(state.admits(limits, Map.of("rps", 1_000L, "tpm", 100_001L))).isFalse();
            assertThat(state.admits(limits, Map.of("rps", 3_001L, "tpm", 1L))).isFalse();
        }

        @Test
        void softLimitsAlwaysPass() {
            BucketState state = state(NOW, "rps", 3_000, 0, "daily", -1_000_000, 0);
            List<Limit> limits = List.of(RPS, DAILY);
            assertThat(state.admits(limits, Map.of("rps", 1_000L, "daily", 50_000L))).isTrue();
            assertThat(state.admits(limits, Map.of("rps", 1_000L, "daily", Long.MAX_VALUE))).isTrue();
            // but a soft limit does not rescue a failing hard one
            assertThat(state.admits(limits, Map.of("rps", 4_000L, "daily", 1L))).isFalse();
        }

        @Test
        void anAmountOfZeroAlwaysPassesEvenInDebt() {
            BucketState state = state(NOW, "rps", -5_000, 0, "tpm", Long.MIN_VALUE, 0);
            List<Limit> limits = List.of(RPS, TPM);
            assertThat(state.admits(limits, Map.of("rps", 0L, "tpm", 0L))).isTrue();
            assertThat(state.admits(limits, Map.of())).isTrue();
            assertThat(state.admits(limits, Map.of("rps", 1L))).isFalse();
            assertThat(state.covers("rps", Map.of("rps", 0L))).isTrue();
            assertThat(state.covers("tpm", Map.of())).isTrue();
        }

        @Test
        void checkingNeverChangesTheState() {
            BucketState state = state(NOW, "rps", 3_000, 7);
            BucketState copy = state(NOW, "rps", 3_000, 7);
            state.admits(List.of(RPS), Map.of("rps", 1_000L));
            state.admits(List.of(RPS), Map.of("rps", 9_000L));
            assertThat(state).isEqualTo(copy);
        }
    }

    @Nested
    class Debited {

        @Test
        void takesTheAmountsAndCountsThem() {
            BucketState state = BucketState.fresh(LIMITS, NOW);
            BucketState debited = state.debited(LIMITS, Map.of("rps", 1_000L, "tpm", 500_000L), false);
            assertThat(debited.limits().get("rps")).isEqualTo(new LimitState(RPS.capacityMilli() - 1_000, 1_000));
            assertThat(debited.limits().get("tpm")).isEqualTo(new LimitState(TPM.capacityMilli() - 500_000,
                    500_000));
            assertThat(debited.limits().get("daily")).isEqualTo(new LimitState(DAILY.capacityMilli(), 0));
            assertThat(debited.lastRefillMillis()).isEqualTo(NOW);
            assertThat(debited.isFull(LIMITS)).isFalse();
            // the original is untouched
            assertThat(state).isEqualTo(BucketState.fresh(LIMITS, NOW));
        }

        @Test
        void consumptionAccumulates() {
            BucketState state = BucketState.fresh(List.of(RPS), NOW);
            for (int i = 0; i < 25; i++) {
                state = state.debited(LIMITS, Map.of("rps", 1_000L), false);
            }
            assertThat(state.limits().get("rps")).isEqualTo(new LimitState(RPS.capacityMilli() - 25_000, 25_000));
        }

        @Test
        void countOnlyLeavesTheBalancesAndStillCountsConsumption() {
            BucketState state = state(NOW, "rps", 2_000, 5_000, "daily", -3, 10);
            BucketState bypassed = state.debited(LIMITS, Map.of("rps", 7_000L, "daily", 4L), true);
            assertThat(bypassed.limits().get("rps")).isEqualTo(new LimitState(2_000, 12_000));
            assertThat(bypassed.limits().get("daily")).isEqualTo(new LimitState(-3, 14));
        }

        @Test
        void mayGoIntoDebtButNeverWraps() {
            BucketState state = state(NOW, "rps", 500, 0, "tpm", Long.MIN_VALUE + 5, Long.MAX_VALUE - 5);
            BucketState debited = state.debited(LIMITS, Map.of("rps", 2_000L, "tpm", 10L), false);
            assertThat(debited.balanceMilli("rps")).isEqualTo(-1_500);
            assertThat(debited.limits().get("tpm")).isEqualTo(new LimitState(Long.MIN_VALUE, Long.MAX_VALUE));
        }

        @Test
        void ignoresNamesTheBucketDoesNotHoldAndZeroAmounts() {
            BucketState state = state(NOW, "rps", 2_000, 5_000);
            BucketState debited = state.debited(LIMITS, Map.of("unknown", 1_000L, "rps", 0L), false);
            assertThat(debited.limits()).isEqualTo(state.limits());
        }
    }

    @Nested
    class Adjusted {

        @Test
        void aPositiveAdjustmentConsumesMoreAndMayPushIntoDebt() {
            BucketState state = state(NOW, "tpm", 100_000, 500_000);
            BucketState adjusted = state.adjusted(List.of(TPM), Map.of("tpm", 300_000L), false);
            assertThat(adjusted.limits().get("tpm")).isEqualTo(new LimitState(-200_000, 800_000));
        }

        @Test
        void aNegativeAdjustmentGivesBackButNeverAboveCapacity() {
            long cap = TPM.capacityMilli();
            BucketState state = state(NOW, "tpm", cap - 100_000, 500_000);
            BucketState partly = state.adjusted(List.of(TPM), Map.of("tpm", -60_000L), false);
            assertThat(partly.limits().get("tpm")).isEqualTo(new LimitState(cap - 40_000, 440_000));
            BucketState beyond = state.adjusted(List.of(TPM), Map.of("tpm", -400_000L), false);
            assertThat(beyond.limits().get("tpm")).isEqualTo(new LimitState(cap, 100_000));
            BucketState extreme = state.adjusted(List.of(TPM), Map.of("tpm", -Long.MAX_VALUE), false);
            assertThat(extreme.balanceMilli("tpm")).isEqualTo(cap);
            BucketState minimum = state.adjusted(List.of(TPM), Map.of("tpm", Long.MIN_VALUE), false);
            assertThat(minimum.balanceMilli("tpm")).isEqualTo(cap);
        }

        @Test
        void countOnlyAdjustmentsLeaveBalancesAndStillCount() {
            BucketState state = state(NOW, "tpm", 1_000, 500_000);
            BucketState more = state.adjusted(List.of(TPM), Map.of("tpm", 300_000L), true);
            assertThat(more.limits().get("tpm")).isEqualTo(new LimitState(1_000, 800_000));
            BucketState less = state.adjusted(List.of(TPM), Map.of("tpm", -200_000L), true);
            assertThat(less.limits().get("tpm")).isEqualTo(new LimitState(1_000, 300_000));
        }

        @Test
        void consumptionIsNetOfAcquiresAndAdjustments() {
            BucketState state = BucketState.fresh(List.of(TPM), NOW);
            state = state.debited(LIMITS, Map.of("tpm", 500_000L), false); // acquire 500 tokens
            state = state.adjusted(List.of(TPM), Map.of("tpm", -180_000L), false); // used only 320
            state = state.adjusted(List.of(TPM), Map.of("tpm", 20_000L), false);   // then 20 more
            state = state.refilled(List.of(TPM), NOW + 1_000);
            assertThat(state.limits().get("tpm").consumedMilli()).isEqualTo(500_000 - 180_000 + 20_000);
            // a rollback of everything leaves nothing consumed
            state = state.adjusted(List.of(TPM), Map.of("tpm", -340_000L), false);
            assertThat(state.limits().get("tpm").consumedMilli()).isZero();
            assertThat(state.balanceMilli("tpm")).isEqualTo(TPM.capacityMilli());
        }

        @Test
        void keepsTheInstantAndIgnoresUnknownNames() {
            BucketState state = state(NOW, "rps", 2_000, 5_000);
            BucketState adjusted = state.adjusted(List.of(RPS), Map.of("unknown", -1_000L), false);
            assertThat(adjusted).isEqualTo(state);
        }
    }

    @Test
    void balanceOfAnUnknownLimitIsZeroAndABucketWithoutItIsNotFull() {
        BucketState state = BucketState.fresh(List.of(RPS), NOW);
        assertThat(state.balanceMilli("tpm")).isZero();
        assertThat(state.isFull(List.of(RPS, TPM))).isFalse();
    }
}
