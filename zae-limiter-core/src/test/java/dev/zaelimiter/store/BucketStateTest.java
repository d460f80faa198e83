package dev.zaelimiter.store;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zaelimiter.Limit;
import dev.zaelimiter.ScheduleEntry;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
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
        long numerator = elapsed * Limits.refillAmountMilli(limit);
        assertThat(numerator % Limits.refillPeriodMillis(limit)).as("test spans are whole milli-tokens").isZero();
        return numerator / Limits.refillPeriodMillis(limit);
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
                        .isEqualTo(new LimitState(limit.capacity() * Limits.MILLI, 0));
                assertThat(fresh.balanceMilli(limit.name())).isEqualTo(limit.capacity() * Limits.MILLI);
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
                assertThat(refilled.balanceMilli(limit.name())).isEqualTo(Limits.capacityMilli(limit));
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
            assertThat(refilled.limits().get("tpm")).isEqualTo(new LimitState(Limits.capacityMilli(TPM), 0));
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
                assertThat(refilled.balanceMilli("tpm")).as("at %d", now).isEqualTo(Limits.capacityMilli(lowered));
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
            assertThat(debited.limits().get("rps")).isEqualTo(new LimitState(Limits.capacityMilli(RPS) - 1_000, 1_000));
            assertThat(debited.limits().get("tpm")).isEqualTo(new LimitState(Limits.capacityMilli(TPM) - 500_000,
                    500_000));
            assertThat(debited.limits().get("daily")).isEqualTo(new LimitState(Limits.capacityMilli(DAILY), 0));
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
            assertThat(state.limits().get("rps")).isEqualTo(new LimitState(Limits.capacityMilli(RPS) - 25_000, 25_000));
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
            long cap = Limits.capacityMilli(TPM);
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
            assertThat(state.balanceMilli("tpm")).isEqualTo(Limits.capacityMilli(TPM));
        }

        @Test
        void keepsTheInstantAndIgnoresUnknownNames() {
            BucketState state = state(NOW, "rps", 2_000, 5_000);
            BucketState adjusted = state.adjusted(List.of(RPS), Map.of("unknown", -1_000L), false);
            assertThat(adjusted).isEqualTo(state);
        }
    }

    @Nested
    class RetryAfter {

        /** Monday 15 June 2026, 10:00 UTC. */
        static final long TEN = Instant.parse("2026-06-15T10:00:00Z").toEpochMilli();
        static final long MINUTE = 60_000;

        static LimitState slots(Map<String, Long> holders) {
            return new LimitState(0, holders.size() * Limits.MILLI, LimitState.NO_WINDOW, holders);
        }

        @Test
        void aWindowThatLowersTheRateCountsForTheWholeTimeSinceTheStoredRefill() {
            // one a minute, capacity 60; from 10:10 to 11:00 half of both
            Limit rph = Limit.perHour("rph", 60).withSchedule(ScheduleEntry.scaled("10-59 10 * * *", 0.5));
            BucketState stored = state(TEN, "rph", 0, 60_000);
            long need = 25_000;
            assertThat(stored.refilled(List.of(rph), TEN).retryAfterMillis(rph, need)).isEqualTo(50 * MINUTE);
            BucketState atFive = stored.refilled(List.of(rph), TEN + 5 * MINUTE);
            assertThat(atFive.balanceMilli("rph")).isEqualTo(5_000);
            assertThat(atFive.retryAfterMillis(rph, need)).as("from the stored state").isEqualTo(45 * MINUTE);
            assertThat(new BucketState(atFive.lastRefillMillis(), atFive.limits()).retryAfterMillis(rph, need))
                    .as("had the refill to 10:05 been written").isEqualTo(40 * MINUTE);
            assertThat(stored.refilled(List.of(rph), TEN + 10 * MINUTE).retryAfterMillis(rph, need))
                    .isEqualTo(40 * MINUTE);
        }

        @Test
        void aWindowThatRaisesTheLimitEndsTheWaitWhenItOpens() {
            // 5 tokens, one back per hour, until 11:00; then 100 a minute
            Limit rpm = Limit.perMinute("rpm", 100).withSchedule(
                    ScheduleEntry.absolute("* 10 * * *", ZoneOffset.UTC, 5, 1, Duration.ofHours(1)));
            BucketState stored = state(TEN + 50 * MINUTE, "rpm", 0, 5_000);
            for (long need = 1_000; need <= 5_000; need += 1_000) {
                assertThat(stored.refilled(List.of(rpm), TEN + 50 * MINUTE).retryAfterMillis(rpm, need))
                        .isEqualTo(10 * MINUTE);
            }
            assertThat(stored.refilled(List.of(rpm), TEN + 50 * MINUTE).retryAfterMillis(rpm, 6_000))
                    .as("more than the window's capacity: the window's end too").isEqualTo(10 * MINUTE);
        }

        @Test
        void aQuotaResetInsideAWindowThatLowersItWaitsForTheWindowToEnd() {
            Limit daily = Limit.quota("daily", 100, "0 0 * * *", ZoneOffset.UTC)
                    .withSchedule(ScheduleEntry.absolute("* 0-5 * * *", ZoneOffset.UTC, 10));
            long sixPm = TEN + 8 * 60 * MINUTE;
            BucketState stored = state(sixPm, "daily", 0, 100_000);
            BucketState seen = stored.refilled(List.of(daily), sixPm);
            assertThat(seen.retryAfterMillis(daily, 50_000)).isEqualTo(12 * 60 * MINUTE);
            assertThat(seen.retryAfterMillis(daily, 10_000)).isEqualTo(6 * 60 * MINUTE);
            assertThat(seen.retryAfterMillis(daily, 100_001)).isEqualTo(BucketMath.NEVER);
        }

        @Test
        void aFreshBucketStaysFullAtTheCapacityInForceUntilItIsWritten() {
            Limit rows = Limit.perMinute("rows", 100).withSchedule(ScheduleEntry.absolute("* 11 * * *",
                    ZoneOffset.UTC, 300));
            assertThat(BucketState.fresh(List.of(rows), TEN).retryAfterMillis(rows, 250_000)).isEqualTo(60 * MINUTE);
            Limit quota = Limit.quota("q", 100, "0 0 1 * *", ZoneOffset.UTC).withSchedule(
                    ScheduleEntry.absolute("* 11 * * *", ZoneOffset.UTC, 300));
            assertThat(BucketState.fresh(List.of(quota), TEN).retryAfterMillis(quota, 250_000))
                    .as("no reset needed: a bucket the store does not hold is full").isEqualTo(60 * MINUTE);
        }

        @Test
        void aConcurrencyLimitLoweredByAWindowWaitsForEnoughSlotsToExpire() {
            Limit inflight = Limit.concurrency("inflight", 3, Duration.ofMinutes(2))
                    .withSchedule(ScheduleEntry.absolute("* 10 * * *", ZoneOffset.UTC, 1));
            long now = TEN - 10_000;
            BucketState stored = new BucketState(now, Map.of("inflight", slots(Map.of(
                    "a", TEN + 30_000, "b", TEN + 60_000, "c", TEN + 90_000))));
            BucketState seen = stored.refilled(List.of(inflight), now);
            assertThat(seen.balanceMilli("inflight")).isZero();
            assertThat(seen.retryAfterMillis(inflight, Limits.MILLI)).as("all three gone: one slot from 10:00")
                    .isEqualTo(100_000);
        }

        @Test
        void theWalkStopsAfterABoundedNumberOfSegmentsWithATimeToAskAgain() {
            // ten a day; every even minute a window of capacity 1: 5 tokens need 12 hours, past 64 segments
            Limit daily = Limit.perDay("daily", 10)
                    .withSchedule(ScheduleEntry.absolute("*/2 * * * *", ZoneOffset.UTC, 1));
            BucketState seen = state(TEN, "daily", 0, 0).refilled(List.of(daily), TEN);
            assertThat(BucketState.MAX_SCHEDULE_STEPS).isEqualTo(64);
            assertThat(seen.retryAfterMillis(daily, 5_000)).as("the end of the 64th segment")
                    .isEqualTo(64 * MINUTE);
            assertThat(RetryAfterOracle.passes(seen, daily, TEN + 64 * MINUTE, 5_000)).isFalse();
            assertThat(RetryAfterOracle.passes(seen, daily, TEN + 12 * 60 * MINUTE + MINUTE, 5_000)).isTrue();
        }

        @Test
        void anUnscheduledLimitWaitsAsBefore() {
            assertThat(state(NOW, "rps", 0, 0).retryAfterMillis(RPS, 2_000)).isEqualTo(200);
            assertThat(state(NOW, "rps", 0, 0).retryAfterMillis(RPS, 10_001)).isEqualTo(BucketMath.NEVER);
            assertThat(state(NOW, "rps", 3_000, 0).retryAfterMillis(RPS, 3_000)).isZero();
            Limit session = Limit.sessionQuota("s", 10, Duration.ofMinutes(7));
            BucketState inSession = new BucketState(NOW, Map.of("s", new LimitState(0, 10_000, NOW - MINUTE)));
            assertThat(inSession.retryAfterMillis(session, 1_000)).isEqualTo(6 * MINUTE);
        }

        /**
         * Every combination of a few limits with windows that lower and raise them, stored states, instants and
         * requests, checked exactly against the stored state refilled instant by instant.
         */
        @Test
        void exhaustivelyTheFirstInstantAtWhichTheRequestPasses() {
            List<Limit> limits = List.of(
                    Limit.custom("drip", 10, 1, Duration.ofSeconds(20)).withSchedule(
                            ScheduleEntry.scaled("20-39 * * * *", 0.5),
                            ScheduleEntry.absolute("40-44 * * * *", ZoneOffset.UTC, 3, 1, Duration.ofSeconds(5)),
                            ScheduleEntry.scaled("50-51 * * * *", 2.0)),
                    Limit.quota("quota", 10, "30 * * * *", ZoneOffset.UTC).withSchedule(
                            ScheduleEntry.absolute("30-44 * * * *", ZoneOffset.UTC, 3)),
                    Limit.sessionQuota("session", 10, Duration.ofMinutes(7)).withSchedule(
                            ScheduleEntry.absolute("30-44 * * * *", ZoneOffset.UTC, 3)),
                    Limit.concurrency("slots", 3, Duration.ofMinutes(3)).withSchedule(
                            ScheduleEntry.absolute("30-44 * * * *", ZoneOffset.UTC, 1)));
            long[] storedAt = {TEN, TEN + 13_000, TEN + 19 * MINUTE + 59_500, TEN + 29 * MINUTE, TEN + 44 * MINUTE};
            long[] later = {0, 7_000, 61_000, 20 * MINUTE};
            long[] balances = {-5_000, 0, 1_500, 4_000, 9_000};
            int checked = 0;
            RetryAfterOracle.bounded.clear();
            for (Limit limit : limits) {
                for (long last : storedAt) {
                    for (long balance : balances) {
                        BucketState stored = stored(limit, last, balance);
                        for (long delta : later) {
                            for (long need = 500; need <= Limits.maxCapacityMilli(limit); need += 500) {
                                if (limit.isConcurrency() && need != Limits.MILLI) {
                                    continue;
                                }
                                RetryAfterOracle.assertExact(stored, limit, last + delta, need, 1_000);
                                checked++;
                            }
                        }
                    }
                }
            }
            assertThat(checked).isGreaterThan(1_000);
            // a session quota outside a session is full (issue 23), so it too recovers: everything passes within the
            // walk
            assertThat(RetryAfterOracle.bounded).isEmpty();
        }

        private static BucketState stored(Limit limit, long last, long balance) {
            if (limit.isConcurrency()) {
                Map<String, Long> holders = new HashMap<>();
                for (int i = 0; i < Math.min(3, Math.max(0, (balance + 5_000) / 3_000)); i++) {
                    holders.put("lease-" + i, last + (i + 1) * 50_000L);
                }
                return new BucketState(last, Map.of(limit.name(), slots(holders)));
            }
            long window = limit.resetAfter().isPresent() && balance < 4_000 ? last - 2 * MINUTE : LimitState.NO_WINDOW;
            return new BucketState(last, Map.of(limit.name(), new LimitState(balance, 0, window)));
        }
    }

    @Test
    void balanceOfAnUnknownLimitIsZeroAndABucketWithoutItIsNotFull() {
        BucketState state = BucketState.fresh(List.of(RPS), NOW);
        assertThat(state.balanceMilli("tpm")).isZero();
        assertThat(state.isFull(List.of(RPS, TPM))).isFalse();
    }
}
