package dev.zaelimiter.contract;

import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.LimitView;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Store contract: numbers at the edges of the {@code long} range (SPEC.md §3.11, issue 9 §2). Balances and
 * consumption counters saturate at {@link Long#MIN_VALUE} and {@link Long#MAX_VALUE} milli-tokens instead of
 * wrapping; a bucket pushed there keeps answering with normal decisions and sane statuses, on every store alike.
 * Amounts that cannot be represented are refused with a {@link ValidationException} before anything is written.
 */
public abstract class NumericRangeContract extends StoreContractSupport {

    protected static final String RESOURCE = "api";
    protected static final String USER = "user-1";

    /** Whole tokens of a balance saturated at {@link Long#MIN_VALUE} milli-tokens, rounded down as statuses are. */
    protected static final long FLOOR_TOKENS = Math.floorDiv(Long.MIN_VALUE, LimitState.MILLI);
    /** Whole tokens of a counter saturated at {@link Long#MAX_VALUE} milli-tokens. */
    protected static final long CEILING_TOKENS = Long.MAX_VALUE / LimitState.MILLI;

    private static LimitStatus status(List<LimitStatus> statuses, String limit) {
        return statuses.stream().filter(s -> s.limitName().equals(limit)).findFirst()
                .orElseThrow(() -> new AssertionError("no status for " + limit + " in " + statuses));
    }

    private LimitView view(String limit) {
        return limiter.inspect(USER, RESOURCE).limits().stream().filter(v -> v.name().equals(limit)).findFirst()
                .orElseThrow();
    }

    /** Hard rpm 100 per minute and soft tpm 1,000 per minute. */
    private void hardRpmSoftTpm() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100),
                Limit.perMinute("tpm", 1_000).soft()));
    }

    // ---- schedule scales

    @Test
    void scheduleScalesAreBoundedToNumbersEveryStoreHolds() {
        for (double scale : new double[] {1e300, 1e-300, 1.01e21, 0.99e-21, Double.MAX_VALUE, Double.MIN_VALUE}) {
            assertThatThrownBy(() -> ScheduleEntry.scaled("* * * * *", scale)).as("scale %s", scale)
                    .isInstanceOf(ValidationException.class).hasMessageContaining("a scale lies between");
        }
        admin.setResourceDefaults(RESOURCE, List.of(
                Limit.perMinute("big", 10).withSchedule(ScheduleEntry.scaled("* * * * *", 1e21)),
                Limit.perMinute("small", 10).soft().withSchedule(ScheduleEntry.scaled("* * * * *", 1e-21))));
        limiter.acquire(USER, RESOURCE, consume("big", Limit.MAX_TOKENS, "small", 1)).close();
        assertThat(limiter.available(USER, RESOURCE)).containsEntry("big", 0L).containsEntry("small", -1L);
    }

    // ---- balances and counters past the range

    @Test
    void aSoftLimitDebitedPastTheRangeSaturatesAndTheBucketKeepsWorking() {
        hardRpmSoftTpm();
        for (int i = 0; i < 10; i++) {
            limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", Limit.MAX_TOKENS)).close();
        }

        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 1));
        assertThat(lease.overdrawn()).containsExactly("tpm");
        assertThat(status(lease.statuses(), "tpm")).satisfies(s -> {
            assertThat(s.available()).isEqualTo(FLOOR_TOKENS);
            assertThat(s.exceeded()).isFalse();
            assertThat(s.overdrawn()).isTrue();
            assertThat(s.retryAfter()).isZero();
        });
        assertThat(status(lease.statuses(), "rpm").available()).isEqualTo(89);
        assertThat(limiter.available(USER, RESOURCE)).containsEntry("rpm", 89L).containsEntry("tpm", FLOOR_TOKENS);
        assertThat(view("tpm").consumed()).isEqualTo(CEILING_TOKENS);
        assertThat(view("rpm").consumed()).isEqualTo(11);
        assertThat(limiter.checkAvailability(USER, RESOURCE, consume("rpm", 1, "tpm", 1)).allowed()).isTrue();

        clock.advance(Duration.ofMinutes(1));
        Lease later = limiter.acquire(USER, RESOURCE, consume("rpm", 100, "tpm", 1));
        assertThat(status(later.statuses(), "rpm").available()).isZero();
        assertThat(status(later.statuses(), "tpm").available()).isBetween(FLOOR_TOKENS, FLOOR_TOKENS + 1_000);
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void adjustingPastTheRangeSaturatesAndTheLimitRefusesWithASaneStatus() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100), Limit.perMinute("tpm", 1_000)));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 1));
        for (int i = 0; i < 12; i++) {
            lease.adjust("tpm", Limit.MAX_TOKENS);
        }

        RateLimitExceededException refused = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 1)), RateLimitExceededException.class);
        assertThat(refused).as("a normal refusal, not a store or parsing error").isNotNull();
        assertThat(status(refused.statuses(), "tpm")).satisfies(s -> {
            assertThat(s.exceeded()).isTrue();
            assertThat(s.available()).isEqualTo(FLOOR_TOKENS);
            assertThat(s.capacity()).isEqualTo(1_000);
            assertThat(s.retryAfter()).isPositive();
        });
        assertThat(status(refused.statuses(), "rpm").available()).isEqualTo(99);
        assertThat(refused.retryAfter()).isPositive();
        assertThat(limiter.available(USER, RESOURCE)).containsEntry("rpm", 99L).containsEntry("tpm", FLOOR_TOKENS);
        assertThat(view("tpm").consumed()).isEqualTo(CEILING_TOKENS);

        Lease rpmOnly = limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(status(rpmOnly.statuses(), "rpm").available()).isEqualTo(98);
        assertThat(limiter.checkAvailability(USER, RESOURCE, consume("tpm", 1)).allowed()).isFalse();
    }

    @Test
    void givingBackFromASaturatedBalanceStartsFromTheFloor() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 1));
        for (int i = 0; i < 12; i++) {
            lease.adjust("tpm", Limit.MAX_TOKENS);
        }
        assertThat(limiter.available(USER, RESOURCE)).containsEntry("tpm", FLOOR_TOKENS);

        lease.adjust("tpm", -Limit.MAX_TOKENS);

        assertThat(limiter.available(USER, RESOURCE)).as("the debt past the range is not kept: saturated balances"
                + " climb from the floor on every store").containsEntry("tpm", FLOOR_TOKENS + Limit.MAX_TOKENS);
    }

    @Test
    void aRollbackAfterAdjustmentsPastTheRangeNeverTakesMore() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 1));
        for (int i = 0; i < 12; i++) {
            lease.adjust("tpm", Limit.MAX_TOKENS);
        }
        long before = limiter.available(USER, RESOURCE).get("tpm");
        long consumedBefore = view("tpm").consumed();

        lease.rollback();

        assertThat(limiter.available(USER, RESOURCE).get("tpm")).as("a rollback gives back").isGreaterThan(before);
        assertThat(view("tpm").consumed()).isLessThan(consumedBefore);
    }

    @Test
    void consumptionCountersOfABypassedEntitySaturate() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)));
        admin.setEntityDisabled(USER, RESOURCE, DisabledMode.BYPASS);
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.acquire(USER, RESOURCE, consume("rpm", Limit.MAX_TOKENS)).bypassed()).isTrue();
        }
        assertThat(view("rpm").consumed()).isEqualTo(CEILING_TOKENS);
        assertThat(view("rpm").available()).isEqualTo(100);

        admin.clearEntityDisabled(USER, RESOURCE);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(lease.statuses()).singleElement().satisfies(s -> assertThat(s.available()).isEqualTo(99));
        assertThat(view("rpm").consumed()).isEqualTo(CEILING_TOKENS);
    }

    // ---- amounts that cannot be represented

    @Test
    void adjustByLongMinValueIsRefusedAndWritesNothing() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 10));

        for (long amount : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, -Limit.MAX_TOKENS - 1, Limit.MAX_TOKENS + 1}) {
            assertThatThrownBy(() -> lease.adjust("tpm", amount))
                    .isInstanceOfSatisfying(ValidationException.class, e -> {
                        assertThat(e.field()).isEqualTo("amount");
                        assertThat(e.value()).isEqualTo(amount);
                    });
        }

        assertThat(limiter.available(USER, RESOURCE)).containsEntry("tpm", 990L);
        assertThat(view("tpm").consumed()).isEqualTo(10);
        lease.rollback();
        assertThat(limiter.available(USER, RESOURCE)).as("the refused adjustments are not part of the lease")
                .containsEntry("tpm", 1_000L);
        assertThat(view("tpm").consumed()).isZero();
    }

    @Test
    void adjustByTheLargestAmountEitherWayIsAccepted() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 10));
        lease.adjust("tpm", -Limit.MAX_TOKENS);
        assertThat(limiter.available(USER, RESOURCE)).containsEntry("tpm", 1_000L);
        lease.adjust("tpm", Limit.MAX_TOKENS);
        assertThat(limiter.available(USER, RESOURCE)).containsEntry("tpm", 1_000L - Limit.MAX_TOKENS);
    }

    @Test
    void targetsWhoseAmountsForOneBucketAddUpPastTheLargestAmountAreRefusedAndWriteNothing() {
        hardRpmSoftTpm();
        AcquireRequest request = AcquireRequest.of(USER, RESOURCE).consume("tpm", Limit.MAX_TOKENS);
        for (int i = 0; i < 9; i++) {
            request = request.also(USER, RESOURCE, consume("tpm", Limit.MAX_TOKENS));
        }
        AcquireRequest tooMuch = request;

        assertThatThrownBy(() -> limiter.acquire(tooMuch))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("consume.tpm"));
        assertThat(limiter.available(USER, RESOURCE)).containsEntry("tpm", 1_000L);
        assertThat(view("tpm").consumed()).isZero();
    }

    @Test
    void pausesThatCannotBeRepresentedAreRefusedAndWriteNothing() {
        hardRpmSoftTpm();
        assertThatThrownBy(() -> limiter.pause(RESOURCE, Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("duration"));
        assertThat(limiter.inspect(USER, RESOURCE).pausedUntil()).isNull();
        limiter.acquire(USER, RESOURCE, consume("rpm", 1)).close();
    }

    @Test
    void anUpstreamRetryAfterTooLargeToRepresentIsClampedToTwoToTheThirtyFirstSeconds() {
        hardRpmSoftTpm();
        java.time.Instant clamped = clock.instant().plusSeconds(2_147_483_648L);
        assertThat(limiter.pauseFromRetryAfter(RESOURCE, "99999999999999999999")).contains(clamped);
        assertThat(limiter.pauseFromRetryAfter(USER, RESOURCE, String.valueOf(Long.MAX_VALUE))).contains(clamped);
    }

    @Test
    void aMaxWaitThatCannotBeRepresentedIsRefused() {
        hardRpmSoftTpm();
        assertThatThrownBy(() -> AcquireRequest.of(USER, RESOURCE).maxWait(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("maxWait"));
    }

    @Test
    void periodsPastTheLongestAreRefused() {
        for (Duration period : new Duration[] {Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(Long.MAX_VALUE),
                Limit.MAX_PERIOD.plusMillis(1)}) {
            assertThatThrownBy(() -> Limit.custom("rpm", 1, 1, period))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("limit rpm refillPeriod"));
            assertThatThrownBy(() -> Limit.sessionQuota("session", 1, period))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("limit session resetAfter"));
            assertThatThrownBy(() -> Limit.concurrency("inflight", 1, period))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("limit inflight leaseTimeout"));
            assertThatThrownBy(() -> ScheduleEntry.absolute("* * * * *", ZoneOffset.UTC, 1, 1, period))
                    .isInstanceOf(ValidationException.class);
        }
    }

    @Test
    void theLongestPeriodsWork() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.concurrency("inflight", 1, Limit.MAX_PERIOD),
                Limit.sessionQuota("session", 2, Limit.MAX_PERIOD), Limit.custom("slow", 1, 1, Limit.MAX_PERIOD)));

        Lease lease = limiter.acquire(USER, RESOURCE, consume("session", 1, "slow", 1));
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("session", 1)))
                .as("the slot is held: its expiry did not wrap").isInstanceOf(RateLimitExceededException.class);
        assertThat(lease.extend()).isTrue();
        lease.close();

        clock.advance(Duration.ofDays(365));
        Lease second = limiter.acquire(USER, RESOURCE, consume("session", 1));
        assertThat(status(second.statuses(), "session").available()).isZero();
        assertThat(status(second.statuses(), "slow").available()).isZero();
        second.close();
        RateLimitExceededException refused = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("session", 1)), RateLimitExceededException.class);
        assertThat(refused).isNotNull();
        assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Limit.MAX_PERIOD);
    }
}
