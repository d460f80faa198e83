package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Attempt;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The DynamoDB store against the in-memory store on one clock, across what changes a bucket's footing: its
 * configuration (rate, capacity, a scheduled window's edge), a debt that outlives the bucket's expiry, a clock that
 * steps back. Each case runs the same calls on both stores and compares what they answer.
 */
class DynamoDbBucketStateChangeTest {

    private MutableClock clock;
    private InMemoryStore memoryStore;
    private DynamoDbStore dynamoStore;
    private RateLimiter memory;
    private RateLimiter dynamo;

    @BeforeEach
    void setUp() {
        clock = MutableClock.start();
        memoryStore = new InMemoryStore();
        dynamoStore = DynamoDbTestStores.newStore(getClass(), clock);
        memory = RateLimiter.builder().store(memoryStore).clock(clock).build();
        dynamo = RateLimiter.builder().store(dynamoStore).clock(clock).build();
    }

    @AfterEach
    void tearDown() {
        memoryStore.close();
        dynamoStore.close();
    }

    /** Runs {@code call} on both limiters and asserts that they answer the same; returns the answer. */
    private <T> T same(String what, Function<RateLimiter, T> call) {
        T expected = call.apply(memory);
        T actual = call.apply(dynamo);
        assertThat(actual).as(what + " (DynamoDB against memory)").isEqualTo(expected);
        return expected;
    }

    private void defaults(Limit... limits) {
        same("set defaults", l -> {
            l.admin().setResourceDefaults("api", List.of(limits));
            return true;
        });
    }

    private static Map<String, Long> available(RateLimiter limiter) {
        return limiter.available("e", "api");
    }

    /** How many of {@code calls} calls of {@code amount} of {@code limit} are admitted at this instant. */
    private static int admitted(RateLimiter limiter, String limit, long amount, int calls) {
        int admitted = 0;
        for (int i = 0; i < calls; i++) {
            Attempt attempt = limiter.tryAcquire("e", "api", Map.of(limit, amount));
            if (attempt.admitted()) {
                attempt.lease().close();
                admitted++;
            }
        }
        return admitted;
    }

    /** The answer to one call: admitted, or the retry-after of its refusal. */
    private static Object decide(RateLimiter limiter, String limit, long amount) {
        Attempt attempt = limiter.tryAcquire("e", "api", Map.of(limit, amount));
        if (attempt.admitted()) {
            attempt.lease().close();
            return "admitted";
        }
        return attempt.retryAfter();
    }

    @Test
    void aReservingLimitWhoseRateIsLoweredKeepsItsBalance() {
        defaults(Limit.perSecond("r", 100).withLocalReservations());
        same("take 10", l -> admitted(l, "r", 10, 1));
        defaults(Limit.perSecond("r", 50).withLocalReservations());
        same("after the change", DynamoDbBucketStateChangeTest::available);
        same("a call after the change", l -> decide(l, "r", 5));
        clock.advance(Duration.ofHours(1));
        dynamoStore.sweepReservationsForTest();
        same("an hour later", DynamoDbBucketStateChangeTest::available);
    }

    @Test
    void aReservingLimitCutFromTenThousandToTenPerSecondKeepsItsBalance() {
        defaults(Limit.perSecond("r", 10_000).withLocalReservations());
        same("take 10", l -> admitted(l, "r", 10, 1));
        defaults(Limit.perSecond("r", 10).withLocalReservations());
        same("after the change", DynamoDbBucketStateChangeTest::available);
        same("calls after the change", l -> admitted(l, "r", 1, 20));
        clock.advance(Duration.ofMillis(350));
        same("350 ms later", DynamoDbBucketStateChangeTest::available);
        same("calls 350 ms later", l -> admitted(l, "r", 1, 20));
    }

    @Test
    void aLoweredCapacityBindsAtOnceOnWhatThisProcessHolds() {
        defaults(Limit.perSecond("r", 4000).withLocalReservations());
        same("a burst that leaves tokens in the pool", l -> admitted(l, "r", 1, 300));
        defaults(Limit.perSecond("r", 10).withLocalReservations());
        same("calls under the lowered capacity", l -> admitted(l, "r", 1, 100));
    }

    @Test
    void aLoweredRateRefillsAtTheNewRateSinceTheLastWrite() {
        defaults(Limit.custom("r", 100, 100, Duration.ofSeconds(1)));
        same("drain", l -> admitted(l, "r", 100, 1));
        defaults(Limit.custom("r", 100, 1, Duration.ofMinutes(1)));
        clock.advance(Duration.ofSeconds(2));
        same("two seconds later", DynamoDbBucketStateChangeTest::available);
        same("calls two seconds later", l -> admitted(l, "r", 1, 100));
    }

    @Test
    void aRaisedRateRefillsAtTheNewRateSinceTheLastWrite() {
        defaults(Limit.custom("r", 10, 1, Duration.ofSeconds(1)));
        same("drain", l -> admitted(l, "r", 10, 1));
        defaults(Limit.custom("r", 10, 10, Duration.ofSeconds(1)));
        clock.advance(Duration.ofMillis(500));
        same("half a second later", DynamoDbBucketStateChangeTest::available);
        same("a call half a second later", l -> decide(l, "r", 6));
    }

    @Test
    void aLimitNotTakenFromKeepsItsBalanceWhenItsCapacityIsRaised() {
        defaults(Limit.perMinute("a", 5), Limit.perHour("b", 1000));
        same("a call on b only", l -> admitted(l, "b", 1, 1));
        defaults(Limit.perMinute("a", 10), Limit.perHour("b", 1000));
        same("after the raise", DynamoDbBucketStateChangeTest::available);
        same("calls after the raise", l -> admitted(l, "a", 1, 20));
    }

    @Test
    void aLimitNotTakenFromKeepsItsBalanceWhenItBecomesAFixedWindow() {
        clock.set(Instant.parse("2026-03-03T10:36:10Z"));
        defaults(Limit.perMinute("a", 5).soft(), Limit.perHour("b", 1000).soft());
        same("a call on b only", l -> admitted(l, "b", 1, 1));
        defaults(Limit.fixedWindow("a", 10, Duration.ofMinutes(1)), Limit.fixedWindow("b", 30, Duration.ofMinutes(1)));
        same("after the change", DynamoDbBucketStateChangeTest::available);
        same("calls after the change", l -> admitted(l, "a", 1, 20));
        clock.set(Instant.parse("2026-03-03T10:37:00Z"));
        same("at the window's end", DynamoDbBucketStateChangeTest::available);
    }

    @Test
    void aLimitThatBecomesASessionQuotaOutsideASessionStartsFull() {
        defaults(Limit.quota("a", 56, "0 0 * * *", ZoneOffset.UTC), Limit.quota("b", 100, "*/15 * * * *",
                ZoneOffset.UTC));
        same("a call on a", l -> admitted(l, "a", 50, 1));
        defaults(Limit.sessionQuota("a", 3000, Duration.ofSeconds(66)), Limit.quota("b", 100, "*/15 * * * *",
                ZoneOffset.UTC));
        Map<String, Long> after = same("after the change", DynamoDbBucketStateChangeTest::available);
        assertThat(after).containsEntry("a", 3000L);
        Object first = same("a call for more than the old balance", l -> decide(l, "a", 2000));
        assertThat(first).isEqualTo("admitted");
        Object second = same("a call for more than what is left", l -> decide(l, "a", 2000));
        assertThat(second).as("the session's end").isEqualTo(Duration.ofSeconds(66));
    }

    @Test
    void aDebtOutlivesTheBucketsExpiry() {
        defaults(Limit.perMinute("a", 10));
        same("debt", l -> {
            Lease lease = l.acquire("e", "api", Map.of("a", 1L));
            lease.adjust("a", 10_000);
            lease.close();
            return true;
        });
        clock.advance(Duration.ofMinutes(600));
        same("600 minutes later", DynamoDbBucketStateChangeTest::available);
        same("calls 600 minutes later", l -> admitted(l, "a", 1, 20));
        clock.advance(Duration.ofDays(400));
        same("a year later", DynamoDbBucketStateChangeTest::available);
    }

    @Test
    void noEvictionOfTheInMemoryStoreForgetsADebt() {
        defaults(Limit.perMinute("a", 10));
        same("debt", l -> {
            Lease lease = l.acquire("e", "api", Map.of("a", 1L));
            lease.adjust("a", 100);
            lease.close();
            return true;
        });
        clock.advance(Duration.ofMinutes(5));
        assertThat(memoryStore.evictIdle(clock.millis())).isZero();
        same("after an eviction", DynamoDbBucketStateChangeTest::available);
        same("consumed after an eviction", l -> l.inspect("e", "api").limits().get(0).consumed());
    }

    @Test
    void aSoftDebtAndItsConsumptionOutliveTheBucketsExpiry() {
        defaults(Limit.perDay("a", 10).soft());
        same("soft debits", l -> admitted(l, "a", 1, 1000));
        clock.advance(Duration.ofDays(60));
        same("60 days later", DynamoDbBucketStateChangeTest::available);
        same("consumed 60 days later", l -> l.inspect("e", "api").limits().get(0).consumed());
        clock.advance(Duration.ofDays(38));
        same("98 days later", DynamoDbBucketStateChangeTest::available);
    }

    @Test
    void aCorrectionIntoDeepDebtOfAReservingLimitOutlivesTheBucketsExpiry() {
        defaults(Limit.perMinute("r", 10).withLocalReservations());
        same("debt", l -> {
            Lease lease = l.acquire("e", "api", Map.of("r", 1L));
            lease.adjust("r", 5_000);
            lease.close();
            return true;
        });
        clock.advance(Duration.ofHours(300));
        dynamoStore.sweepReservationsForTest();
        same("300 hours later", DynamoDbBucketStateChangeTest::available);
        same("a call 300 hours later", l -> decide(l, "r", 1));
    }

    @Test
    void aScaledWindowsEdgeRefillsAsTheInMemoryStoreDoes() {
        clock.set(Instant.parse("2026-03-01T21:25:00Z"));
        defaults(Limit.custom("r", 56, 4, Duration.ofHours(1))
                .withSchedule(List.of(ScheduleEntry.scaled("* 15-23 * * *", ZoneOffset.UTC, 0.5))));
        same("one call in the scaled window", l -> admitted(l, "r", 1, 1));
        clock.set(Instant.parse("2026-03-01T21:27:00Z"));
        same("retry-after at 21:27", l -> decide(l, "r", 42));
        clock.set(Instant.parse("2026-03-02T00:00:00Z"));
        same("available at midnight", DynamoDbBucketStateChangeTest::available);
        same("a call at midnight", l -> decide(l, "r", 42));
        same("calls at midnight", l -> admitted(l, "r", 1, 60));
    }

    @Test
    void aRefusedCallOnAReservingLimitLeavesAnotherLimitsLoweredCapacityUnclipped() {
        defaults(Limit.perDay("r", 100).withLocalReservations(), Limit.perHour("b", 168));
        same("take b", l -> admitted(l, "b", 1, 1));
        same("drain r", l -> admitted(l, "r", 100, 1));
        defaults(Limit.perDay("r", 100).withLocalReservations(), Limit.custom("b", 32, 168, Duration.ofHours(1)));
        same("a refused call on r under b's lowered capacity", l -> decide(l, "r", 50));
        defaults(Limit.perDay("r", 100).withLocalReservations(), Limit.perHour("b", 168));
        Map<String, Long> after = same("after b's capacity is raised again", DynamoDbBucketStateChangeTest::available);
        assertThat(after).as("a refusal writes nothing, so b was never cut down").containsEntry("b", 167L);
    }

    @Test
    void aReservingLimitRefusedBeforeAClockStepBackAsksTheStoreAgain() {
        defaults(Limit.perDay("r", 100).withLocalReservations());
        same("take 10", l -> admitted(l, "r", 10, 1));
        same("a refused call for 100", l -> decide(l, "r", 100));
        clock.advance(Duration.ofSeconds(-150));
        Object after = same("a call for 1 after the step back", l -> decide(l, "r", 1));
        assertThat(after).isEqualTo("admitted");
    }

    @Test
    void aRefusalAfterAClockStepBackWaitsFromTheLastWrite() {
        defaults(Limit.perMinute("a", 10));
        same("drain", l -> admitted(l, "a", 10, 1));
        clock.advance(Duration.ofSeconds(5));
        same("a refused call", l -> decide(l, "a", 5));
        clock.advance(Duration.ofMillis(-869));
        same("a refused call after the step back", l -> decide(l, "a", 5));
    }

    @Test
    void aRefusalOfAScheduledLimitAfterAClockStepBackWaitsFromTheLastWrite() {
        clock.set(Instant.parse("2026-03-01T10:40:00Z"));
        defaults(Limit.quota("q", 10, "0 0 * * *", ZoneOffset.UTC)
                .withSchedule(List.of(ScheduleEntry.absolute("0-29 * * * *", ZoneOffset.UTC, 6))));
        same("drain", l -> admitted(l, "q", 10, 1));
        clock.advance(Duration.ofSeconds(5));
        same("a refused call", l -> decide(l, "q", 5));
        clock.advance(Duration.ofMillis(-869));
        same("a refused call after the step back", l -> decide(l, "q", 5));
    }

    @Test
    void aReservingLimitInDebtRefusesLocallyWithItsDebt() {
        defaults(Limit.perDay("a", 1000).soft());
        same("a soft debt", l -> admitted(l, "a", 20_000, 1));
        defaults(Limit.perHour("a", 1).withLocalReservations());
        same("a refused call", l -> decide(l, "a", 1));
        Object again = same("the same call again", l -> decide(l, "a", 1));
        assertThat((Duration) again).isGreaterThan(Duration.ofHours(19_000));
    }

    /** Every limit's available balance in the status of one call (admitted or refused). */
    private static Map<String, Long> statuses(RateLimiter limiter, Map<String, Long> amounts) {
        Attempt attempt = limiter.tryAcquire("e", "api", amounts);
        Map<String, Long> available = new java.util.TreeMap<>();
        attempt.statuses().forEach(status -> available.put(status.limitName(), status.available()));
        if (attempt.admitted()) {
            attempt.lease().close();
        }
        return available;
    }

    @Test
    void aCallServedByAPoolShowsTheOtherLimitsAsLastWritten() {
        defaults(Limit.custom("r", 1000, 100, Duration.ofHours(1)).withLocalReservations(), Limit.quota("q", 10_000,
                "0 0 * * *", ZoneOffset.UTC));
        same("take 700 of r", l -> statuses(l, Map.of("r", 700L)));
        same("take 1 of r", l -> statuses(l, Map.of("r", 1L)).get("q"));
        same("take 10 of q", l -> statuses(l, Map.of("q", 10L)).get("q"));
        Long q = same("q in the status of a call on r", l -> statuses(l, Map.of("r", 1L)).get("q"));
        assertThat(q).isEqualTo(9990L);
    }

    @Test
    void aCallRefusedByAPoolShowsTheBucketsBalance() {
        defaults(Limit.perDay("r", 100).withLocalReservations());
        same("take 56", l -> admitted(l, "r", 56, 1));
        clock.advance(Duration.ofHours(12));
        same("a refused call for 100", l -> statuses(l, Map.of("r", 100L)));
        Map<String, Long> again = same("the same call again", l -> statuses(l, Map.of("r", 100L)));
        assertThat(again).containsEntry("r", 94L);
    }

    @Test
    void aClockThatStepsBackCountsFromTheLastWrite() {
        defaults(Limit.perMinute("rpm", 1000));
        same("spend 900", l -> admitted(l, "rpm", 900, 1));
        clock.advance(Duration.ofMinutes(-10));
        same("after the step back", DynamoDbBucketStateChangeTest::available);
        same("a call after the step back", l -> decide(l, "rpm", 50));
        same("a refused call after the step back", l -> decide(l, "rpm", 80));
        clock.advance(Duration.ofMinutes(10).plusSeconds(3));
        same("once the clock caught up", DynamoDbBucketStateChangeTest::available);
    }

    @Test
    void aReopenedStoreWhoseClockIsBehindTheLastWriteCountsFromIt() {
        defaults(Limit.perSecond("a", 10).soft(), Limit.quota("b", 56, "0 0 * * *", ZoneOffset.UTC));
        same("a soft debt", l -> admitted(l, "a", 99, 1));
        clock.advance(Duration.ofSeconds(3));
        same("a call on b", l -> admitted(l, "b", 1, 1));
        dynamoStore.close();
        dynamoStore = sharedStore(dynamoStore.namespace(), clock);
        dynamo = RateLimiter.builder().store(dynamoStore).clock(clock).build();
        clock.advance(Duration.ofSeconds(-2));
        same("a call on b after the reopen and the step back", l -> admitted(l, "b", 1, 1));
        Map<String, Long> after = same("after it", DynamoDbBucketStateChangeTest::available);
        assertThat(after).containsEntry("a", -59L);
    }

    @Test
    void aHostBehindCountsFromTheLastWriteOfAHostAhead() {
        Clock ahead = Clock.offset(clock, Duration.ofMinutes(10));
        String namespace = "skew-" + System.nanoTime();
        try (DynamoDbStore aheadStore = sharedStore(namespace, ahead);
             DynamoDbStore behindStore = sharedStore(namespace, clock)) {
            RateLimiter aheadHost = RateLimiter.builder().store(aheadStore).clock(ahead).build();
            RateLimiter behindHost = RateLimiter.builder().store(behindStore).clock(clock).build();
            aheadHost.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
            aheadHost.acquire("e", "api", Map.of("rpm", 900L)).close();

            assertThat(behindHost.available("e", "api")).containsEntry("rpm", 100L);
            assertThat(behindHost.tryAcquire("e", "api", Map.of("rpm", 60L)).admitted()).isTrue();
            assertThat(aheadHost.available("e", "api")).containsEntry("rpm", 40L);
            assertThat(behindHost.tryAcquire("e", "api", Map.of("rpm", 41L)).retryAfter())
                    .isEqualTo(Duration.ofMillis(60));
        }
    }

    @Test
    void twoHostsWhoseClocksDifferAdmitAtMostTheSkewTimesTheRateMore() {
        Duration skew = Duration.ofSeconds(2);
        Clock ahead = Clock.offset(clock, skew);
        String namespace = "skew-" + System.nanoTime();
        try (DynamoDbStore aheadStore = sharedStore(namespace, ahead);
             DynamoDbStore behindStore = sharedStore(namespace, clock)) {
            RateLimiter aheadHost = RateLimiter.builder().store(aheadStore).clock(ahead).build();
            RateLimiter behindHost = RateLimiter.builder().store(behindStore).clock(clock).build();
            aheadHost.admin().setResourceDefaults("api", List.of(Limit.perSecond("r", 10)));
            long admitted = 0;
            for (int step = 0; step < 400; step++) {
                RateLimiter first = step % 3 == 0 ? behindHost : aheadHost;
                RateLimiter second = first == aheadHost ? behindHost : aheadHost;
                admitted += admitted(first, "r", 1, 1) + admitted(second, "r", 1, 1);
                clock.advance(Duration.ofMillis(50));
            }
            long exact = 10 + 10 * 20;
            long bound = 10 * skew.toSeconds();
            assertThat(admitted).as("an exact bucket admits %d; the skew may add %d", exact, bound)
                    .isBetween(exact - bound, exact + bound);
        }
    }

    private static DynamoDbStore sharedStore(String namespace, Clock clock) {
        return DynamoDbStore.builder().client(DynamoDbTestStores.client())
                .table(DynamoDbTestStores.table(DynamoDbBucketStateChangeTest.class))
                .requestTimeout(DynamoDbTestStores.REQUEST_TIMEOUT).namespace(namespace).clock(clock).build();
    }

    @Test
    void stepsBackAndForthOnManyCallsAgree() {
        defaults(Limit.custom("r", 20, 4, Duration.ofSeconds(1)));
        java.util.Random random = new java.util.Random(23);
        List<Object> answers = new ArrayList<>();
        for (int step = 0; step < 60; step++) {
            clock.advance(Duration.ofMillis(random.nextInt(3000) - 1000));
            long amount = 1 + random.nextInt(5);
            answers.add(same("step " + step, l -> decide(l, "r", amount)));
        }
        assertThat(answers).contains("admitted");
    }
}
