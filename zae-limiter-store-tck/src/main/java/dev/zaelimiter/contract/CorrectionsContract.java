package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.UnsatisfiableRequestException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Store contract for corrections and requests that can never pass (issue 23): an adjustment is never refused, also
 * on a full balance, where a refund does nothing; a rollback gives back what its lease still holds and never takes
 * tokens; a debit made outside a session starts one, so that its debt ends with that session; a call whose targets
 * together ask one hard limit for more than its capacity is unsatisfiable at once.
 */
public abstract class CorrectionsContract extends StoreContractSupport {

    private static final String RESOURCE = "api";

    private long available(String limit) {
        return limiter.available("user-1", RESOURCE).get(limit);
    }

    @Test
    void aRefundOnAFullQuotaIsANoOp() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 100, "0 0 * * *", ZoneOffset.UTC)));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("daily", 0));
        lease.adjust("daily", -1);
        assertThat(available("daily")).isEqualTo(100);
        lease.adjust("daily", 3);
        assertThat(available("daily")).as("a later debit counts from the full balance").isEqualTo(97);
    }

    @Test
    void aPositiveAdjustOnAnUntouchedQuotaTakesFromItsCapacity() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 100, "0 0 * * *", ZoneOffset.UTC)));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("daily", 0));
        lease.adjust("daily", 7);
        assertThat(available("daily")).isEqualTo(93);
    }

    @Test
    void aRefundOnAFullFixedWindowOrSessionQuotaIsANoOp() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.fixedWindow("window", 10, Duration.ofMinutes(1)),
                Limit.sessionQuota("session", 20, Duration.ofMinutes(5))));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("window", 0, "session", 0));
        lease.adjust("window", -2);
        lease.adjust("session", -2);
        assertThat(limiter.available("user-1", RESOURCE)).containsEntry("window", 10L).containsEntry("session", 20L);
    }

    @Test
    void aRefundOnTheFullQuotaOfAMultiLimitCallIsANoOp() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10),
                Limit.quota("daily", 100, "0 0 * * *", ZoneOffset.UTC)));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("rpm", 1, "daily", 0));
        lease.adjust("daily", -5);
        lease.adjust("rpm", -5);
        assertThat(limiter.available("user-1", RESOURCE)).containsEntry("rpm", 10L).containsEntry("daily", 100L);
    }

    @Test
    void aRefundOnAFullDrippingOrReservingLimitIsANoOp() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10),
                Limit.perSecond("rps", 100).withLocalReservations()));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("rpm", 0, "rps", 0));
        lease.adjust("rpm", -1);
        lease.adjust("rps", -1);
        assertThat(limiter.available("user-1", RESOURCE)).containsEntry("rpm", 10L).containsEntry("rps", 100L);
        limiter.acquire("user-1", RESOURCE, consume("rpm", 1, "rps", 1)).rollback();
        lease.adjust("rps", -5);
        assertThat(limiter.available("user-1", RESOURCE)).containsEntry("rpm", 10L).containsEntry("rps", 100L);
    }

    @Test
    void aRollbackAfterARefundBelowTheTakeGivesBackNothingMore() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("rpm", 5));
        lease.adjust("rpm", -20);
        assertThat(available("rpm")).isEqualTo(10);
        lease.rollback();
        assertThat(available("rpm")).as("a rollback never takes tokens").isEqualTo(10);
    }

    @Test
    void aTakeAfterARefundBeyondTheTakeIsWhatARollbackGivesBack() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("rpm", 5));
        lease.adjust("rpm", -20);                              // gives back the 5 it took; the lease holds nothing
        lease.adjust("rpm", 10);
        assertThat(available("rpm")).isZero();
        lease.rollback();
        assertThat(available("rpm")).as("the lease held the 10 it took last").isEqualTo(10);
    }

    @Test
    void aRollbackGivesBackWhatTheLeaseStillHolds() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.quota("daily", 100, "0 0 * * *", ZoneOffset.UTC)));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("daily", 30));
        lease.adjust("daily", -10);
        limiter.acquire("user-1", RESOURCE, consume("daily", 5)).close();
        assertThat(available("daily")).isEqualTo(75);
        lease.rollback();
        assertThat(available("daily")).as("the lease still held 20").isEqualTo(95);
    }

    @Test
    void debtMadeOutsideASessionStartsOneAndEndsWithIt() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("session", 20, Duration.ofSeconds(66))));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("session", 5));
        lease.adjust("session", -30);
        assertThat(available("session")).isEqualTo(20);
        clock.advance(Duration.ofSeconds(10));
        lease.adjust("session", 62);
        assertThat(available("session")).isEqualTo(-42);
        RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire("user-1", RESOURCE, consume("session", 1)));
        assertThat(refused).isNotNull();
        assertThat(refused.retryAfter()).as("the debt ends with the session the debit started")
                .isEqualTo(Duration.ofSeconds(66));
        clock.advance(Duration.ofSeconds(66));
        assertThat(available("session")).isEqualTo(20);
        limiter.acquire("user-1", RESOURCE, consume("session", 1)).close();
    }

    @Test
    void aPositiveAdjustAfterASessionEndedStartsANewSession() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.sessionQuota("session", 20, Duration.ofSeconds(66))));
        Lease lease = limiter.acquire("user-1", RESOURCE, consume("session", 12));
        clock.advance(Duration.ofSeconds(70));
        lease.adjust("session", 3);
        assertThat(available("session")).isEqualTo(17);
        clock.advance(Duration.ofSeconds(65));
        assertThat(available("session")).isEqualTo(17);
        clock.advance(Duration.ofSeconds(1));
        assertThat(available("session")).isEqualTo(20);
    }

    @Test
    void theSameLimitTwiceAboveItsCapacityIsUnsatisfiableAtOnce() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        AcquireRequest request = AcquireRequest.of("user-1", RESOURCE).consume("rpm", 6)
                .also("user-1", RESOURCE, Map.of("rpm", 6L));
        assertThatThrownBy(() -> limiter.acquire(request)).isInstanceOfSatisfying(
                UnsatisfiableRequestException.class, e -> {
                    assertThat(e.limitName()).isEqualTo("rpm");
                    assertThat(e.capacity()).isEqualTo(10);
                    assertThat(e.requested()).isEqualTo(12);
                });
        assertThat(available("rpm")).as("nothing was written").isEqualTo(10);
        limiter.acquire(AcquireRequest.of("user-1", RESOURCE).consume("rpm", 5)
                .also("user-1", RESOURCE, Map.of("rpm", 5L))).close();
        assertThat(available("rpm")).isZero();
    }

    @Test
    void aRequestThatCanPassLaterHasAFiniteRetryAfter() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        limiter.acquire("user-1", RESOURCE, consume("rpm", 10)).close();
        RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class,
                () -> limiter.acquire(AcquireRequest.of("user-1", RESOURCE).consume("rpm", 4)
                        .also("user-1", RESOURCE, Map.of("rpm", 4L))));
        assertThat(refused).isNotNull();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(48));
    }
}
