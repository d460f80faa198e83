package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Availability;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Store contract: fixed windows (issue 10, "Windows shorter than a minute"). {@code Limit.fixedWindow(name,
 * allowance, window)} hands the whole allowance back at every multiple of the window since its origin (the epoch
 * unless given), with no drip in between; the retry-after of an exhausted window is the time to the next boundary;
 * a soft fixed window meters into debt that the next boundary forgives. A one-minute calendar quota
 * ({@code * * * * *}) resets at every minute. Everything runs on the {@link dev.zaelimiter.testing.MutableClock}
 * through {@link RateLimiter} and {@link dev.zaelimiter.RateLimiterAdmin}, so every store runs it.
 */
public abstract class FixedWindowContract extends StoreContractSupport {

    protected static final String RESOURCE = "sms";

    private void at(String instant) {
        clock.set(Instant.parse(instant));
    }

    private long available(String entityId, String limit) {
        Long value = limiter.available(entityId, RESOURCE).get(limit);
        assertThat(value).as("limit %s of %s", limit, entityId).isNotNull();
        return value;
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

    @Test
    void theAllowanceComesBackWholeAtEachMultipleOfTheWindowAndNothingInBetween() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per10s", 5, Duration.ofSeconds(10))));
        at("2026-06-15T10:00:03.250Z");
        take("user-1", "per10s", 3);
        take("user-1", "per10s", 2);
        assertThat(refusedWith("user-1", "per10s", 1)).isEqualTo(Duration.ofMillis(6_750));
        at("2026-06-15T10:00:09.999Z");
        assertThat(available("user-1", "per10s")).as("nothing drips").isZero();
        assertThat(refusedWith("user-1", "per10s", 1)).isEqualTo(Duration.ofMillis(1));
        at("2026-06-15T10:00:10Z");
        assertThat(available("user-1", "per10s")).isEqualTo(5);
        take("user-1", "per10s", 5);
        assertThat(refusedWith("user-1", "per10s", 5)).isEqualTo(Duration.ofSeconds(10));
        at("2026-06-15T10:00:20Z");
        take("user-1", "per10s", 5);
    }

    @Test
    void eachCallerHasItsOwnBucketButTheSameBoundaries() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per10s", 2, Duration.ofSeconds(10))));
        at("2026-06-15T10:00:01Z");
        take("alice", "per10s", 2);
        at("2026-06-15T10:00:08Z");
        take("bob", "per10s", 2);
        assertThat(refusedWith("alice", "per10s", 1)).isEqualTo(Duration.ofSeconds(2));
        assertThat(refusedWith("bob", "per10s", 1)).as("not ten seconds after bob's first call")
                .isEqualTo(Duration.ofSeconds(2));
        at("2026-06-15T10:00:10Z");
        assertThat(available("alice", "per10s")).isEqualTo(2);
        assertThat(available("bob", "per10s")).isEqualTo(2);
    }

    @Test
    void windowsShorterThanASecond() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("burst", 2, Duration.ofMillis(250))));
        at("2026-06-15T10:00:00.100Z");
        take("user-1", "burst", 2);
        assertThat(refusedWith("user-1", "burst", 1)).isEqualTo(Duration.ofMillis(150));
        at("2026-06-15T10:00:00.250Z");
        take("user-1", "burst", 2);
        at("2026-06-15T10:00:00.499Z");
        assertThat(refusedWith("user-1", "burst", 2)).isEqualTo(Duration.ofMillis(1));
        at("2026-06-15T10:00:00.500Z");
        take("user-1", "burst", 1);
        take("user-1", "burst", 1);
        assertThat(refusedWith("user-1", "burst", 1)).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void anIdleBucketResetsOnceHoweverManyWindowsItMissed() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per10s", 5, Duration.ofSeconds(10))));
        at("2026-06-15T10:00:00Z");
        take("user-1", "per10s", 5);
        at("2026-06-15T10:07:42Z");                          // 46 boundaries later: the allowance once, no credit
        assertThat(available("user-1", "per10s")).isEqualTo(5);
        take("user-1", "per10s", 5);
        assertThat(refusedWith("user-1", "per10s", 1)).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void anOriginMovesTheBoundaries() {
        Limit perMinute = Limit.fixedWindow("per-minute", 3, Duration.ofMinutes(1),
                Instant.parse("2026-01-01T00:00:30Z"));                      // boundaries at :30 of every minute
        admin.setResourceDefaults(RESOURCE, List.of(perMinute));
        assertThat(admin.getResourceDefaults(RESOURCE)).containsExactly(perMinute);
        at("2026-06-15T10:05:10Z");
        take("user-1", "per-minute", 3);
        assertThat(refusedWith("user-1", "per-minute", 1)).isEqualTo(Duration.ofSeconds(20));
        at("2026-06-15T10:05:30Z");
        assertThat(available("user-1", "per-minute")).isEqualTo(3);
    }

    @Test
    void theLimitIsStoredAndReadBackWithItsWindowAndOrigin() {
        List<Limit> limits = List.of(Limit.fixedWindow("a", 10, Duration.ofMillis(1)),
                Limit.fixedWindow("b", 20, Duration.ofSeconds(10), Instant.parse("2026-06-15T10:00:03.250Z")),
                Limit.fixedWindow("c", 30, Limit.MAX_PERIOD).soft(),
                Limit.fixedWindow("d", 40, Duration.ofHours(1)).withSchedule(
                        dev.zaelimiter.ScheduleEntry.absolute("* 9-17 * * MON-FRI", ZoneId.of("Europe/Berlin"), 80)));
        admin.setResourceDefaults(RESOURCE, limits);
        assertThat(admin.getResourceDefaults(RESOURCE)).isEqualTo(limits);
        RateLimiter other = newLimiter(store);
        assertThat(other.admin().getResourceDefaults(RESOURCE)).isEqualTo(limits);
    }

    @Test
    void anAmountAboveTheAllowanceCanNeverPass() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per10s", 5, Duration.ofSeconds(10))));
        assertThatThrownBy(() -> limiter.acquire("user-1", RESOURCE, consume("per10s", 6)))
                .isInstanceOf(UnsatisfiableRequestException.class);
    }

    @Test
    void aSoftFixedWindowMetersIntoDebtThatTheNextBoundaryForgives() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per10s", 5, Duration.ofSeconds(10)).soft()));
        at("2026-06-15T10:00:01Z");
        try (Lease lease = limiter.acquire("user-1", RESOURCE, consume("per10s", 8))) {
            assertThat(lease.overdrawn()).containsExactly("per10s");
            assertThat(lease.statuses()).singleElement().satisfies(s -> {
                assertThat(s.soft()).isTrue();
                assertThat(s.exceeded()).isFalse();
            });
        }
        assertThat(available("user-1", "per10s")).isEqualTo(-3);
        at("2026-06-15T10:00:10Z");
        assertThat(available("user-1", "per10s")).isEqualTo(5);
    }

    @Test
    void correctionsWithinAWindowGiveBackAndAfterABoundaryNeverLiftItAboveTheAllowance() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per10s", 5, Duration.ofSeconds(10))));
        at("2026-06-15T10:00:01Z");
        Lease early = limiter.acquire("user-1", RESOURCE, consume("per10s", 3));
        Lease late = limiter.acquire("user-1", RESOURCE, consume("per10s", 2));
        late.rollback();
        assertThat(available("user-1", "per10s")).isEqualTo(2);
        at("2026-06-15T10:00:10Z");
        early.adjust("per10s", -3);                          // a refund of the last window: capped at the allowance
        assertThat(available("user-1", "per10s")).isEqualTo(5);
        early.adjust("per10s", 4);                           // a late correction is charged to this window
        early.close();
        assertThat(available("user-1", "per10s")).isEqualTo(1);
    }

    @Test
    void aFixedWindowAndARateAreSpentTogetherAndTheLongerWaitWins() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per10s", 5, Duration.ofSeconds(10)),
                Limit.perMinute("rpm", 6)));
        at("2026-06-15T10:00:05Z");
        limiter.acquire("user-1", RESOURCE, consume("per10s", 5, "rpm", 5)).close();
        RateLimitExceededException e = exceeded(() -> limiter.acquire("user-1", RESOURCE,
                consume("per10s", 1, "rpm", 2)));
        assertThat(e.violations()).extracting(LimitStatus::limitName).containsExactlyInAnyOrder("per10s", "rpm");
        assertThat(e.retryAfter()).as("rpm needs 10 s for its second token, the window 5 s")
                .isEqualTo(Duration.ofSeconds(10));
        at("2026-06-15T10:00:15Z");
        limiter.acquire("user-1", RESOURCE, consume("per10s", 1, "rpm", 2)).close();
    }

    /**
     * A bucket written by one limiter and used across boundaries by another on the same store, as two processes
     * would: each boundary is honoured whoever wrote last.
     */
    @Test
    void boundariesHoldAcrossLimitersSharingTheStore() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("per1s", 3, Duration.ofSeconds(1))));
        RateLimiter other = newLimiter(store);
        at("2026-06-15T10:00:00.900Z");
        limiter.acquire("user-1", RESOURCE, consume("per1s", 2)).close();
        other.acquire("user-1", RESOURCE, consume("per1s", 1)).close();
        assertThatThrownBy(() -> limiter.acquire("user-1", RESOURCE, consume("per1s", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        at("2026-06-15T10:00:01Z");
        other.acquire("user-1", RESOURCE, consume("per1s", 3)).close();
        assertThatThrownBy(() -> limiter.acquire("user-1", RESOURCE, consume("per1s", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        at("2026-06-15T10:00:02.500Z");
        limiter.acquire("user-1", RESOURCE, consume("per1s", 1)).close();
        other.acquire("user-1", RESOURCE, consume("per1s", 2)).close();
        assertThatThrownBy(() -> other.acquire("user-1", RESOURCE, consume("per1s", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    /**
     * The total-consumed counter is not exposed by {@code RateLimiter}; it is read through
     * {@link dev.zaelimiter.store.LimiterStore#peek}, which every store implements.
     */
    @Test
    void boundariesNeverTouchTheConsumptionCounter() {
        List<Limit> limits = List.of(Limit.fixedWindow("per10s", 5, Duration.ofSeconds(10)));
        admin.setResourceDefaults(RESOURCE, limits);
        at("2026-06-15T10:00:00Z");
        take("user-1", "per10s", 5);
        at("2026-06-15T10:00:10Z");
        take("user-1", "per10s", 4);
        BucketDebit peek = new BucketDebit(new BucketKey("user-1", RESOURCE), limits, Map.of(), false, true);
        LimitState state = store.peek(List.of(peek), clock.millis()).get(0).state().limits().get("per10s");
        assertThat(state.consumedMilli()).isEqualTo(9 * LimitState.MILLI);
        assertThat(state.balanceMilli()).isEqualTo(LimitState.MILLI);
    }

    // ---- a one-minute calendar quota

    @Test
    void aOneMinuteCronQuotaResetsAtEveryMinute() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("per-minute", 4, "* * * * *",
                ZoneId.of("America/New_York"))));
        at("2026-06-15T10:00:45Z");
        take("user-1", "per-minute", 4);
        assertThat(refusedWith("user-1", "per-minute", 1)).isEqualTo(Duration.ofSeconds(15));
        at("2026-06-15T10:00:59.999Z");
        assertThat(available("user-1", "per-minute")).isZero();
        at("2026-06-15T10:01:00Z");
        assertThat(available("user-1", "per-minute")).isEqualTo(4);
        take("user-1", "per-minute", 4);
        assertThat(refusedWith("user-1", "per-minute", 1)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void aOneMinuteCronQuotaKeepsResettingEveryMinuteAcrossAFallBackChange() {
        // New York falls back on Sunday 1 November 2026: 01:00-01:59 local happens twice
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("per-minute", 1, "* * * * *",
                ZoneId.of("America/New_York"))));
        at("2026-11-01T06:30:10Z");                          // 01:30:10 EST, the second pass
        take("user-1", "per-minute", 1);
        assertThat(refusedWith("user-1", "per-minute", 1)).isEqualTo(Duration.ofSeconds(50));
        at("2026-11-01T06:31:00Z");
        take("user-1", "per-minute", 1);
    }

    @Test
    void aCostAboveAOneMinuteQuotaIsRefusedAtOnce() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("per-minute", 4, "* * * * *",
                ZoneId.of("UTC"))));
        assertThatThrownBy(() -> limiter.acquire(AcquireRequest.of("user-1", RESOURCE).consume("per-minute", 5)))
                .isInstanceOf(UnsatisfiableRequestException.class);
    }
}
