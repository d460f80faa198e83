package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Availability;
import dev.zaelimiter.Lease;
import dev.zaelimiter.LeaseClosedException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.UnsatisfiableRequestException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Token buckets, leases and the configuration hierarchy, as every store must implement them. */
public abstract class BucketContract extends StoreContractSupport {

    @Test
    void newBucketStartsFullAndRejectsOnceEmpty() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 3)));
        for (int i = 0; i < 3; i++) {
            limiter.acquire("user-1", "api", consume("rpm", 1)).close();
        }
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void refillIsContinuousAndRetryAfterIsExact() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        limiter.acquire("user-1", "api", consume("rpm", 60));
        RateLimitExceededException e = catchExceeded(() -> limiter.acquire("user-1", "api", consume("rpm", 2)));
        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        clock.advance(Duration.ofMillis(1999));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rpm", 2)))
                .isInstanceOf(RateLimitExceededException.class);
        clock.advance(Duration.ofMillis(1));
        limiter.acquire("user-1", "api", consume("rpm", 2));
    }

    @Test
    void aBucketThatWentIdleAfterOneCallAdmitsOnlyItsCapacityInTheNextBurst() {
        admin.setResourceDefaults("api", List.of(Limit.custom("r", 20, 20, Duration.ofSeconds(5))));
        limiter.acquire("user-1", "api", consume("r", 1)).close();
        clock.advance(Duration.ofSeconds(6));
        Lease first = limiter.acquire("user-1", "api", consume("r", 1));
        assertThat(first.statuses()).singleElement().extracting(LimitStatus::available).isEqualTo(19L);
        int admitted = 1;
        while (admitted <= 100) {
            try {
                limiter.acquire("user-1", "api", consume("r", 1)).close();
                admitted++;
            } catch (RateLimitExceededException refused) {
                break;
            }
        }
        assertThat(admitted).as("a full bucket of 20, not the idle time credited twice").isEqualTo(20);
    }

    @Test
    void everyIdlePatternAdmitsExactlyWhatAnExactBucketWould() {
        admin.setResourceDefaults("api", List.of(Limit.custom("r", 20, 4, Duration.ofSeconds(1))));
        java.util.Random random = new java.util.Random(20261130);
        long balanceMilli = 20_000;
        for (int step = 0; step < 400; step++) {
            long idle = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> random.nextInt(300);
                case 2 -> random.nextInt(3_000);
                default -> 4_000 + random.nextInt(4_000);
            };
            clock.advance(Duration.ofMillis(idle));
            balanceMilli = Math.min(20_000, balanceMilli + 4 * idle);
            long amount = 1 + random.nextInt(6);
            boolean expected = balanceMilli >= amount * 1000;
            boolean admitted;
            try {
                Lease lease = limiter.acquire("user-1", "api", consume("r", amount));
                admitted = true;
                balanceMilli -= amount * 1000;
                assertThat(lease.statuses()).as("step %d", step).singleElement()
                        .extracting(LimitStatus::available).isEqualTo(Math.floorDiv(balanceMilli, 1000));
            } catch (RateLimitExceededException refused) {
                admitted = false;
            }
            assertThat(admitted).as("step %d after %d ms idle, %d asked of %d milli-tokens", step, idle, amount,
                    balanceMilli).isEqualTo(expected);
        }
    }

    @Test
    void burstRaisesCapacityButNotRate() {
        admin.setResourceDefaults("api", List.of(Limit.perSecond("rps", 2).withBurst(10)));
        limiter.acquire("user-1", "api", consume("rps", 10));
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.available("user-1", "api")).containsEntry("rps", 2L);
        clock.advance(Duration.ofHours(1));
        assertThat(limiter.available("user-1", "api")).containsEntry("rps", 10L);
    }

    @Test
    void severalLimitsAreAllOrNothing() {
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 1000)));
        limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tpm", 900));
        RateLimitExceededException e = catchExceeded(
                () -> limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tpm", 200)));
        assertThat(e.violations()).extracting(LimitStatus::limitName).containsExactly("tpm");
        assertThat(e.passed()).extracting(LimitStatus::limitName).containsExactly("rpm");
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 9L).containsEntry("tpm", 100L);
    }

    @Test
    void rejectionCarriesEveryStatusAndTheLongestWait() {
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 2), Limit.perHour("tph", 2)));
        limiter.acquire("user-1", "gpt-4", consume("rpm", 2, "tph", 2));
        RateLimitExceededException e = catchExceeded(
                () -> limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tph", 1)));
        assertThat(e.statuses()).hasSize(2);
        assertThat(e.violations()).hasSize(2);
        assertThat(e.retryAfter()).isEqualTo(Duration.ofMinutes(30));
        LimitStatus rpm = e.statuses().stream().filter(s -> s.limitName().equals("rpm")).findFirst().orElseThrow();
        assertThat(rpm).isEqualTo(new LimitStatus("user-1", "gpt-4", "rpm", 2, 0, 1, true, false,
                Duration.ofSeconds(30)));
        Map<String, Object> map = e.toMap();
        assertThat(map).containsEntry("retry_after_ms", 1_800_000L);
        assertThat((List<?>) map.get("violations")).hasSize(2);
        assertThat((List<?>) map.get("passed")).isEmpty();
    }

    @Test
    void rejectedCallConsumesNothing() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 5)));
        limiter.acquire("user-1", "api", consume("rpm", 4));
        catchExceeded(() -> limiter.acquire("user-1", "api", consume("rpm", 2)));
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 1L);
    }

    @Test
    void leaseAdjustConsumesMoreOrGivesBackAndMayGoIntoDebt() {
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 1000)));
        Lease lease = limiter.acquire("user-1", "gpt-4", consume("tpm", 500));
        lease.adjust("tpm", -180);
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", 680L);
        lease.adjust("tpm", 1000);
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", -320L);
        lease.close();
        clock.advance(Duration.ofSeconds(30));
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", 180L);
    }

    @Test
    void rollbackReturnsEverythingExactlyOnce() {
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 1000)));
        Lease lease = limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tpm", 500));
        lease.adjust("tpm", 100);
        limiter.acquire("user-1", "gpt-4", consume("tpm", 50)).close();
        lease.rollback();
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 10L).containsEntry("tpm", 950L);
        assertThatThrownBy(lease::rollback).isInstanceOf(LeaseClosedException.class);
        assertThatThrownBy(() -> lease.adjust("tpm", 1)).isInstanceOf(LeaseClosedException.class);
        lease.close();
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("tpm", 950L);
    }

    @Test
    void refundNeverLiftsABalanceAboveCapacity() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        Lease lease = limiter.acquire("user-1", "api", consume("rpm", 5));
        clock.advance(Duration.ofMinutes(5));
        lease.rollback();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 10L);
    }

    @Test
    void closedLeaseRefusesAdjustAndRollbackButMayBeClosedAgain() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        Lease lease = limiter.acquire("user-1", "api", consume("rpm", 1));
        lease.close();
        lease.close();
        assertThatThrownBy(() -> lease.adjust("rpm", 1)).isInstanceOf(LeaseClosedException.class);
        assertThatThrownBy(lease::rollback).isInstanceOf(LeaseClosedException.class);
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 9L);
    }

    @Test
    void callRollsBackWhenTheCallableThrows() throws Exception {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        AcquireRequest request = AcquireRequest.of("user-1", "api").consume("rpm", 3);
        assertThatThrownBy(() -> limiter.call(request, () -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 10L);

        assertThat(limiter.call(request, () -> "done")).isEqualTo("done");
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 7L);
    }

    @Test
    void checkAvailabilityNeverConsumes() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 2)));
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.checkAvailability("user-1", "api", consume("rpm", 2)).allowed()).isTrue();
        }
        limiter.acquire("user-1", "api", consume("rpm", 2));
        Availability availability = limiter.checkAvailability("user-1", "api", consume("rpm", 1));
        assertThat(availability.allowed()).isFalse();
        assertThat(availability.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(availability.statuses()).singleElement().satisfies(s -> {
            assertThat(s.available()).isZero();
            assertThat(s.exceeded()).isTrue();
        });
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 0L);
    }

    @Test
    void bucketsAreSeparatePerEntityAndPerResource() {
        admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 1)));
        limiter.acquire("user-1", "a", consume("rpm", 1));
        limiter.acquire("user-2", "a", consume("rpm", 1));
        limiter.acquire("user-1", "b", consume("rpm", 1));
        assertThatThrownBy(() -> limiter.acquire("user-1", "a", consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void hierarchyTakesTheFirstLevelThatDefinesLimitsWhole() {
        admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 1), Limit.perMinute("tpm", 1)));
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 2)));
        admin.setLimits("user-1", "_default_", List.of(Limit.perMinute("rpm", 3)));
        admin.setLimits("user-1", "gpt-4", List.of(Limit.perMinute("rpm", 4)));

        assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 4L));
        assertThat(limiter.available("user-1", "claude")).isEqualTo(Map.of("rpm", 3L));
        assertThat(limiter.available("user-2", "gpt-4")).isEqualTo(Map.of("rpm", 2L));
        assertThat(limiter.available("user-2", "claude")).isEqualTo(Map.of("rpm", 1L, "tpm", 1L));

        admin.deleteLimits("user-1", "gpt-4");
        assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 3L));
        admin.deleteLimits("user-1", "_default_");
        assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 2L));
        admin.deleteResourceDefaults("gpt-4");
        assertThat(limiter.available("user-1", "gpt-4")).isEqualTo(Map.of("rpm", 1L, "tpm", 1L));
    }

    @Test
    void perCallLimitsOverrideStoredConfigurationForThatCallOnly() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        AcquireRequest generous = AcquireRequest.of("user-1", "api").consume("rpm", 3)
                .limits(List.of(Limit.perMinute("rpm", 5)));
        limiter.acquire(generous);
        assertThat(limiter.available("user-1", "api")).as("stored capacity applies again").containsEntry("rpm", 1L);
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rpm", 3)))
                .isInstanceOf(UnsatisfiableRequestException.class);
        assertThat(admin.getResourceDefaults("api")).containsExactly(Limit.perMinute("rpm", 1));
    }

    @Test
    void aLowerPerCallLimitGovernsOnlyItsCallAndLeavesTheSharedBucketToTheStoredLimit() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
        AcquireRequest strict = AcquireRequest.of("user-1", "api").consume("rpm", 1)
                .limits(List.of(Limit.perMinute("rpm", 5)));

        Lease lease = limiter.acquire(strict);
        assertThat(lease.statuses()).singleElement().satisfies(s -> {
            assertThat(s.capacity()).as("the call sees its own limit").isEqualTo(5);
            assertThat(s.available()).isEqualTo(4);
        });
        assertThat(limiter.available("user-1", "api")).as("others lost only the token the call took")
                .containsEntry("rpm", 99L);
        limiter.acquire("user-1", "api", consume("rpm", 90)).close();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 9L);

        Lease second = limiter.acquire(strict.consume("rpm", 4));           // the call's view: at most 5 of 9
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 5L);
        second.rollback();
        assertThat(limiter.available("user-1", "api")).as("a rollback gives back to the shared bucket")
                .containsEntry("rpm", 9L);
        lease.rollback();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 10L);

        limiter.acquire("user-1", "api", consume("rpm", 8)).close();        // 2 left: the call's view is 2
        assertThatThrownBy(() -> limiter.acquire(strict.consume("rpm", 3)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 2L);
        limiter.acquire("user-1", "api", consume("rpm", 2)).close();
    }

    @Test
    void perCallLimitsCannotResetTheStoredLimitsTheyLeaveOut() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 5), Limit.perMinute("tpm", 100)));
        limiter.acquire("user-1", "api", consume("rpm", 1, "tpm", 100));
        limiter.acquire(AcquireRequest.of("user-1", "api").consume("rpm", 1)
                .limits(List.of(Limit.perMinute("rpm", 5))));
        assertThat(limiter.available("user-1", "api")).isEqualTo(Map.of("rpm", 3L, "tpm", 0L));
        clock.advance(Duration.ofSeconds(30));
        assertThat(limiter.available("user-1", "api")).containsEntry("tpm", 50L);
    }

    @Test
    void addedLimitStartsFullRemovedLimitDisappearsLoweredCapacityClips() {
        admin.setLimits("user-1", "api", List.of(Limit.perMinute("rpm", 100)));
        limiter.acquire("user-1", "api", consume("rpm", 10));
        admin.setLimits("user-1", "api", List.of(Limit.perMinute("rpm", 50), Limit.perMinute("tpm", 1000)));
        assertThat(limiter.available("user-1", "api")).isEqualTo(Map.of("rpm", 50L, "tpm", 1000L));
        limiter.acquire("user-1", "api", consume("tpm", 400));
        admin.setLimits("user-1", "api", List.of(Limit.perMinute("tpm", 1000)));
        assertThat(limiter.available("user-1", "api")).isEqualTo(Map.of("tpm", 600L));
    }

    @Test
    void configurationChangeIsSeenAtOnceByAnotherLimiterOnTheSameStore() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        var other = newLimiter(store);
        other.acquire("user-1", "api", consume("rpm", 1));
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1), Limit.perMinute("tpm", 10)));
        other.acquire("user-1", "api", consume("tpm", 10));
        assertThatThrownBy(() -> other.acquire("user-1", "api", consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        admin.deleteResourceDefaults("api");
        admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 5)));
        assertThat(other.available("user-1", "api")).isEqualTo(Map.of("rpm", 0L));
    }

    @Test
    void clockGoingBackwardsRefillsNothingAndBreaksNothing() {
        admin.setResourceDefaults("api", List.of(Limit.perSecond("rps", 10)));
        limiter.acquire("user-1", "api", consume("rps", 10));
        clock.advance(Duration.ofSeconds(-30));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rps", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        clock.advance(Duration.ofSeconds(30).plusMillis(100));
        limiter.acquire("user-1", "api", consume("rps", 1));
        assertThat(limiter.available("user-1", "api")).containsEntry("rps", 0L);
    }

    @Test
    void zeroConsumeIsAdmittedEvenInDebt() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 100)));
        Lease lease = limiter.acquire("user-1", "api", consume("rpm", 1, "tpm", 100));
        lease.adjust("tpm", 50);
        limiter.acquire("user-1", "api", consume("rpm", 1, "tpm", 0)).close();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 8L).containsEntry("tpm", -50L);
    }

    @Test
    void leaseReportsStatusesAfterTheDebit() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        Lease lease = limiter.acquire("user-1", "api", consume("rpm", 4));
        assertThat(lease.statuses()).singleElement().satisfies(s -> {
            assertThat(s.available()).isEqualTo(6);
            assertThat(s.requested()).isEqualTo(4);
            assertThat(s.exceeded()).isFalse();
        });
        assertThat(lease.bypassed()).isFalse();
        assertThat(lease.degraded()).isFalse();
        assertThat(lease.overdrawn()).isEmpty();
    }

    @Test
    void inspectShowsTheConfigurationInForceAndEveryLimitWithoutWriting() {
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10),
                Limit.perMinute("tpm", 1000).soft()));
        limiter.acquire("user-1", "gpt-4", consume("rpm", 3, "tpm", 1200)).close();
        var view = limiter.inspect("user-1", "gpt-4");
        assertThat(view.source()).isEqualTo("RESOURCE");
        assertThat(view.disabled()).isEqualTo(dev.zaelimiter.DisabledMode.ENABLED);
        assertThat(view.cascadesTo()).isNull();
        assertThat(view.limits()).extracting(dev.zaelimiter.LimitView::name).containsExactly("rpm", "tpm");
        assertThat(view.limits().get(0)).satisfies(rpm -> {
            assertThat(rpm.capacity()).isEqualTo(10);
            assertThat(rpm.available()).isEqualTo(7);
            assertThat(rpm.refillAmount()).isEqualTo(10);
            assertThat(rpm.refillPeriod()).isEqualTo(Duration.ofMinutes(1));
            assertThat(rpm.consumed()).isEqualTo(3);
            assertThat(rpm.nextReset()).isNull();
        });
        assertThat(view.limits().get(1).overdrawn()).isTrue();
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 7L);
    }

    @Test
    void resetBucketPutsItBackToFull() {
        admin.setResourceDefaults("api", List.of(Limit.perHour("rph", 5)));
        limiter.acquire("user-1", "api", consume("rph", 5));
        admin.resetBucket("user-1", "api");
        assertThat(limiter.available("user-1", "api")).containsEntry("rph", 5L);
        limiter.acquire("user-1", "api", consume("rph", 5));
    }

    @Test
    void consumptionCountersLiveUntilTheBucketsHorizonThenRestart() {
        // rpm fills in a minute: its horizon is two fills plus an hour after the last write (concepts.md)
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        admin.setLimits("vip", "api", List.of(Limit.perMinute("rpm", 10)));
        for (String entity : List.of("user-1", "vip")) {
            limiter.acquire(entity, "api", consume("rpm", 3)).close();
        }
        Duration horizon = Duration.ofMinutes(62);
        clock.advance(horizon.minusMillis(1));
        evictIdle();
        for (String entity : List.of("user-1", "vip")) {
            assertThat(limiter.inspect(entity, "api").limits().get(0).consumed()).as(entity).isEqualTo(3);
        }
        clock.advance(Duration.ofMillis(1));
        for (String entity : List.of("user-1", "vip")) {
            assertThat(limiter.inspect(entity, "api").limits().get(0).consumed()).as(entity).isZero();
        }
        evictIdle();
        limiter.acquire("user-1", "api", consume("rpm", 2)).close();
        assertThat(limiter.inspect("user-1", "api").limits().get(0)).satisfies(rpm -> {
            assertThat(rpm.consumed()).isEqualTo(2);
            assertThat(rpm.available()).isEqualTo(8);
        });
    }

    @Test
    void aQuotasHorizonIsADayPastItsNextReset() {
        // the session quota's horizon is two sessions plus an hour; the daily quota's a day past its next reset
        clock.set(java.time.Instant.parse("2026-03-02T21:00:00Z"));
        admin.setResourceDefaults("api", List.of(Limit.sessionQuota("s", 100, Duration.ofSeconds(66)),
                Limit.quota("q", 10, "0 0 * * *", java.time.ZoneOffset.UTC)));
        limiter.acquire("user-1", "api", consume("s", 5)).close();
        clock.set(java.time.Instant.parse("2026-03-04T00:00:00Z").minusMillis(1));
        evictIdle();
        assertThat(limiter.inspect("user-1", "api").limits().get(0).consumed()).isEqualTo(5);
        clock.advance(Duration.ofMillis(1));
        assertThat(limiter.inspect("user-1", "api").limits().get(0).consumed()).isZero();
    }

    @Test
    void aDebtKeepsTheBucketPastItsHorizon() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10).soft()));
        Lease lease = limiter.acquire("user-1", "api", consume("rpm", 5));
        lease.adjust("rpm", 10_000);                   // owes 9,995 tokens: about 16 hours to repay
        lease.close();
        clock.advance(Duration.ofHours(10));
        evictIdle();
        assertThat(limiter.inspect("user-1", "api").limits().get(0)).satisfies(rpm -> {
            assertThat(rpm.consumed()).isEqualTo(10_005);
            assertThat(rpm.available()).isEqualTo(-3_995);
        });
        clock.advance(Duration.ofHours(6).plusMinutes(40));     // past the horizon, 5 tokens short of full
        evictIdle();
        assertThat(limiter.inspect("user-1", "api").limits().get(0).consumed()).isEqualTo(10_005);
        clock.advance(Duration.ofMinutes(1));                     // full again: the bucket's life ends
        evictIdle();
        assertThat(limiter.inspect("user-1", "api").limits().get(0).consumed()).isZero();
    }

    @Test
    void aPerCallOverrideDoesNotEndABucketThatStillOwes() {
        // whether the bucket's life ended is judged under the limits it is kept under, not a call's override
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100).soft()));
        Lease lease = limiter.acquire("user-1", "api", consume("rpm", 100));
        lease.adjust("rpm", 7_000);                    // owes 7,000 tokens: 70 minutes to repay
        lease.close();
        clock.advance(Duration.ofMinutes(70).plusSeconds(30));  // past the horizon, 50 tokens short of full
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 50L);
        limiter.acquire(AcquireRequest.of("user-1", "api").consume("rpm", 1)
                .limits(List.of(Limit.perSecond("rpm", 40)))).close();   // full under the override
        assertThat(limiter.inspect("user-1", "api").limits().get(0)).satisfies(rpm -> {
            assertThat(rpm.available()).as("the kept bucket, debited once").isEqualTo(49);
            assertThat(rpm.consumed()).isEqualTo(7_101);
        });
    }

    /** What the store does to idle buckets on its own, done now: the in-memory store's eviction. */
    private void evictIdle() {
        if (store instanceof dev.zaelimiter.store.memory.InMemoryStore memory) {
            memory.evictIdle(clock.millis());
        }
    }

    protected static RateLimitExceededException catchExceeded(Runnable call) {
        try {
            call.run();
        } catch (RateLimitExceededException e) {
            return e;
        }
        throw new AssertionError("expected RateLimitExceededException");
    }
}
