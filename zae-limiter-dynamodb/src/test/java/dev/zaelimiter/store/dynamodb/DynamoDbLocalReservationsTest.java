package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.FullAt;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Limits with local reservations on DynamoDB, with a clock the test moves: several stores on one namespace stand for
 * several processes. Every admission is counted at the instant the call got its lease (when a token was handed out),
 * and over every window the admitted total stays within capacity plus what the limit credited in it, whatever the
 * idle and burst pattern, while the processes serve most calls from their batches.
 */
class DynamoDbLocalReservationsTest {

    private final MutableClock clock = MutableClock.start();
    private final RequestCounter counter = new RequestCounter();
    private final List<DynamoDbStore> stores = new ArrayList<>();
    private final List<RateLimiter> limiters = new ArrayList<>();

    /** One admission: when the lease was granted and how many tokens. */
    private record Admission(long at, long amount) {
    }

    @BeforeEach
    void processes() {
        String namespace = null;
        for (int i = 0; i < 3; i++) {
            DynamoDbStore.Builder builder = DynamoDbTestStores.builder(getClass(), clock)
                    .client(Dynalite.get().client(counter));
            if (namespace != null) {
                builder.namespace(namespace);
            }
            DynamoDbStore store = builder.build();
            namespace = store.namespace();
            stores.add(store);
            limiters.add(RateLimiter.builder().store(store).clock(clock).build());
        }
    }

    @AfterEach
    void close() {
        stores.forEach(DynamoDbStore::close);
    }

    @Test
    void everyIdleAndBurstPatternAdmitsAtMostCapacityPlusRefillOverEveryWindow() {
        Limit limit = Limit.custom("r", 40, 20, Duration.ofSeconds(1)).withLocalReservations();
        limiters.get(0).admin().setResourceDefaults("api", List.of(limit));
        Random random = new Random(20261130);
        List<Admission> admissions = new ArrayList<>();
        long calls = 0;
        for (int step = 0; step < 300; step++) {
            long idle = switch (random.nextInt(5)) {
                case 0 -> 0;
                case 1 -> random.nextInt(60);
                case 2 -> random.nextInt(600);
                case 3 -> 900 + random.nextInt(300);
                default -> 1_500 + random.nextInt(3_000);
            };
            clock.advance(Duration.ofMillis(idle));
            int burst = 1 + random.nextInt(random.nextBoolean() ? 4 : 40);
            for (int i = 0; i < burst; i++) {
                RateLimiter limiter = limiters.get(random.nextInt(limiters.size()));
                long amount = 1 + random.nextInt(3);
                calls++;
                try (Lease lease = limiter.acquire("tenant", "api", Map.of("r", amount))) {
                    admissions.add(new Admission(clock.millis(), amount));
                    assertThat(lease.statuses().get(0).available()).isBetween(0L, 40L);
                } catch (RateLimitExceededException refused) {
                    assertThat(refused.retryAfter()).isPositive();
                }
            }
        }
        assertWithinBound(admissions, limit);
        long admitted = admissions.stream().mapToLong(Admission::amount).sum();
        assertThat(admitted).as("admitted of %d calls", calls).isGreaterThan(1_000);
        assertThat(counter.total()).as("requests for %d calls", calls).isLessThan(calls);
    }

    @Test
    void oneProcessServesABurstFromItsBatchesWithFewWrites() {
        limiters.get(0).admin().setResourceDefaults("api",
                List.of(Limit.perSecond("r", 1_000).withLocalReservations()));
        limiters.get(0).available("tenant", "api");
        counter.reset();
        List<Admission> admissions = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            admitOrNot(limiters.get(0), admissions);
        }
        assertThat(admissions).hasSize(500);
        assertThat(counter.count("UpdateItem")).as("writes for 500 calls").isLessThan(50);
        assertThat(Holds.held(stores.get(1).bucketItemForTest("tenant", "api"), "r"))
                .as("held: unused and handed out, not yet retired").isBetween(1L, 250_000L);
    }

    @Test
    void tokensHeldThroughAnIdleSpellDoNotAddToTheNextBurst() {
        Limit limit = Limit.custom("r", 100, 10, Duration.ofSeconds(1)).withLocalReservations();
        limiters.get(0).admin().setResourceDefaults("api", List.of(limit));
        List<Admission> admissions = new ArrayList<>();
        // process 0 builds up demand at one instant, so it reserves a batch and holds it
        for (int i = 0; i < 30; i++) {
            admitOrNot(limiters.get(0), admissions);
        }
        long held = Holds.held(stores.get(0).bucketItemForTest("tenant", "api"), "r");
        assertThat(held).as("process 0 holds a batch").isPositive();
        // the bucket refills while the batch is held; then everyone bursts
        clock.advance(Duration.ofMillis(800));
        for (int round = 0; round < 200; round++) {
            admitOrNot(limiters.get(round % 3), admissions);
        }
        assertWithinBound(admissions, limit);
        long inBurst = admissions.stream().filter(a -> a.at() == clock.millis()).mapToLong(Admission::amount).sum();
        assertThat(inBurst).as("the burst after the idle spell").isLessThanOrEqualTo(100 - 30 + 8);
    }

    @Test
    void closingAStoreGivesItsUnusedTokensBack() {
        Limit limit = Limit.custom("r", 100, 1, Duration.ofHours(1)).withLocalReservations();
        limiters.get(0).admin().setResourceDefaults("api", List.of(limit));
        List<Admission> admissions = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            admitOrNot(limiters.get(0), admissions);
        }
        assertThat(Holds.held(stores.get(1).bucketItemForTest("tenant", "api"), "r")).isPositive();
        stores.get(0).close();
        assertThat(Holds.held(stores.get(1).bucketItemForTest("tenant", "api"), "r")).isZero();
        for (int i = 0; i < 100; i++) {
            admitOrNot(limiters.get(1), admissions);
        }
        assertThat(admissions).hasSize(100);
    }

    @Test
    void aCrashedProcessHoldIsSpentAtItsBoundAndRefillsAfter() {
        Limit limit = Limit.custom("r", 100, 10, Duration.ofSeconds(1)).withLocalReservations();
        limiters.get(0).admin().setResourceDefaults("api", List.of(limit));
        List<Admission> admissions = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            admitOrNot(limiters.get(0), admissions);
        }
        stores.get(0).haltReservationsForTest();              // the process dies holding its batch
        long held = Holds.held(stores.get(1).bucketItemForTest("tenant", "api"), "r");
        assertThat(held).isPositive();
        clock.advance(Duration.ofSeconds(3));                  // past the hold and the grace; refilled 30
        for (int i = 0; i < 200; i++) {
            admitOrNot(limiters.get(1), admissions);
        }
        long admittedAfter = admissions.size() - 30;
        assertThat(admittedAfter).as("the held tokens are not back yet, the rest is: %s",
                stores.get(2).bucketItemForTest("tenant", "api")).isEqualTo(100 - held / 1000);
        assertThat(Holds.of(stores.get(1).bucketItemForTest("tenant", "api"), "r"))
                .as("the dead process's hold was dropped").doesNotContainKey(stores.get(0).reservationProcessForTest());
        stores.get(1).close();                                 // retires what it handed out, returns the rest
        clock.advance(Duration.ofSeconds(20));
        for (int i = 0; i < 200; i++) {
            admitOrNot(limiters.get(2), admissions);
        }
        assertThat(admissions.size() - 30 - admittedAfter).as("full again after it refilled: %s",
                stores.get(2).bucketItemForTest("tenant", "api")).isEqualTo(100);
        assertWithinBound(admissions, limit);
    }

    @Test
    void poolsDirectWritesOfSeveralLimitsAndRefundsTogetherNeverCreateOrLoseATokenAtOneInstant() {
        limiters.get(0).admin().setResourceDefaults("api", List.of(
                Limit.custom("r", 60, 1, Duration.ofHours(1)).withLocalReservations(), Limit.perMinute("rpm", 1_000)));
        long net = 0;
        for (int round = 0; round < 40; round++) {
            try (Lease lease = limiters.get(0).acquire("tenant", "api", Map.of("r", 1L))) {
                net++;                                                    // from process 0's pool
            } catch (RateLimitExceededException refused) {
                // short
            }
            try {
                Lease both = limiters.get(1).acquire("tenant", "api", Map.of("r", 2L, "rpm", 1L));
                net += 2;                                                 // one write on both limits
                if (round % 3 == 0) {
                    both.rollback();                                      // a refund
                    net -= 2;
                } else if (round % 3 == 1) {
                    both.adjust("r", -1);                                 // a partial refund
                    net -= 1;
                }
                both.close();
            } catch (RateLimitExceededException refused) {
                // short
            }
        }
        stores.get(0).close();                                            // process 0 gives its pool back
        while (true) {
            try {
                limiters.get(2).acquire("tenant", "api", Map.of("r", 1L, "rpm", 1L)).close();
                net++;
            } catch (RateLimitExceededException refused) {
                break;
            }
        }
        assertThat(net).as("net tokens taken at one instant, every path together").isEqualTo(60);
        assertThat(Holds.held(stores.get(2).bucketItemForTest("tenant", "api"), "r")).isZero();
    }

    @Test
    void aRollbackOrRefundSoonAfterTheAcquireLandsWhenTheBucketIsNearlyFull() {
        limiters.get(0).admin().setResourceDefaults("api", List.of(Limit.perSecond("r", 100).withLocalReservations()));
        Lease rolledBack = limiters.get(0).acquire("tenant", "api", Map.of("r", 50L));
        clock.advance(Duration.ofMillis(100));                 // refilled 10: lacks 40, less than the refund
        rolledBack.rollback();
        assertThat(limiters.get(1).available("tenant", "api")).containsEntry("r", 100L);

        Lease adjusted = limiters.get(0).acquire("tenant", "api", Map.of("r", 50L));
        clock.advance(Duration.ofMillis(100));
        adjusted.adjust("r", -50);
        adjusted.close();
        assertThat(limiters.get(1).available("tenant", "api")).containsEntry("r", 100L);
        limiters.get(2).acquire("tenant", "api", Map.of("r", 100L)).close();
        assertThat(limiters.get(2).available("tenant", "api")).as("exact: nothing created by the refunds")
                .containsEntry("r", 0L);
    }

    @Test
    void twoReservingLimitsOnOneBucketEachKeepTheirOwnPoolExactly() {
        limiters.get(0).admin().setResourceDefaults("api", List.of(
                Limit.perSecond("a", 1_000).withLocalReservations(), Limit.perSecond("b", 1_000).withLocalReservations()));
        for (int i = 0; i < 60; i++) {
            limiters.get(0).acquire("tenant", "api", Map.of("a", 1L)).close();
            limiters.get(0).acquire("tenant", "api", Map.of("b", 2L)).close();
            limiters.get(1).acquire("tenant", "api", Map.of("a", 1L, "b", 1L)).close();
        }
        Map<String, ?> item = stores.get(2).bucketItemForTest("tenant", "api");
        assertThat(Holds.held(stores.get(2).bucketItemForTest("tenant", "api"), "a")).as("%s", item).isPositive();
        stores.get(0).close();
        assertThat(limiters.get(2).available("tenant", "api"))
                .containsEntry("a", 1_000L - 120).containsEntry("b", 1_000L - 180);
    }

    @Test
    void aCallerThatReadTheClockBeforeItStalledIsNotServedFromAHoldPastItsMargin() {
        Limit limit = Limit.custom("r", 100, 1, Duration.ofHours(1)).withLocalReservations();
        BucketDebit one = new BucketDebit(new BucketKey("tenant", "api"), List.of(limit), Map.of("r", 1_000L),
                false, false);
        long readBeforeStall = clock.millis();
        for (int i = 0; i < 30; i++) {
            stores.get(0).tryAcquire(List.of(one), readBeforeStall);
        }
        assertThat(Holds.held(stores.get(1).bucketItemForTest("tenant", "api"), "r")).isPositive();
        clock.advance(Duration.ofMillis(ReservationPool.HOLD_MILLIS - ReservationPool.MARGIN_MILLIS / 2));
        counter.reset();
        stores.get(0).tryAcquire(List.of(one), readBeforeStall);
        assertThat(counter.count("UpdateItem")).as("the hold is past its margin by the store's clock: written")
                .isPositive();
    }

    @Test
    void aCallWaitingTooLongBehindAnotherCallsWriteIsReportedAsAnUnavailableStoreNotARefusal() throws Exception {
        Limit limit = Limit.custom("r", 100, 1, Duration.ofHours(1)).withLocalReservations();
        BucketDebit one = new BucketDebit(new BucketKey("tenant", "api"), List.of(limit), Map.of("r", 1_000L),
                false, false);
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutionInterceptor slowWrite = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest && writing.getCount() > 0) {
                    writing.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        try (DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock).namespace(stores.get(0).namespace())
                .client(Dynalite.get().client(slowWrite)).build()) {
            long now = clock.millis();
            Thread first = new Thread(() -> store.tryAcquire(List.of(one), now));
            first.start();
            assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
            try {
                assertThatThrownBy(() -> store.tryAcquire(List.of(one), now))
                        .isInstanceOf(StoreUnavailableException.class);
            } finally {
                release.countDown();
                first.join();
            }
        }
    }

    @Test
    void poolsOfBucketsThatWentQuietAreEvictedAndACallAfterwardsGetsANewOne() {
        limiters.get(0).admin().setResourceDefaults("api", List.of(Limit.perSecond("r", 100).withLocalReservations()));
        for (int entity = 0; entity < 50; entity++) {
            for (int i = 0; i < 10; i++) {
                limiters.get(0).acquire("tenant-" + entity, "api", Map.of("r", 1L)).close();
            }
        }
        assertThat(stores.get(0).reservationPoolsForTest()).isEqualTo(50);
        clock.advance(Duration.ofSeconds(1));
        stores.get(0).sweepReservationsForTest();              // gives the batches back
        stores.get(0).sweepReservationsForTest();              // evicts the pools that hold nothing
        assertThat(stores.get(0).reservationPoolsForTest()).isZero();
        limiters.get(0).acquire("tenant-0", "api", Map.of("r", 1L)).close();
        assertThat(stores.get(0).reservationPoolsForTest()).isEqualTo(1);
        assertThat(limiters.get(1).available("tenant-0", "api")).containsEntry("r", 99L);
    }

    @Test
    void aProcessThatFoundTheBucketShortWaitsUntilItRefillsWhatItAskedFor() {
        RateLimiter limiter = limiters.get(0);
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("r", 100).withLocalReservations()));
        int admitted = 0;
        for (int i = 0; i < 200; i++) {
            admitted += limiter.tryAcquire("tenant", "api", Map.of("r", 1L)).admitted() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(100);
        counter.reset();
        for (int step = 0; step < 10; step++) {
            clock.advance(Duration.ofMillis(10));                 // one token comes back every 10 ms
            limiter.tryAcquire("tenant", "api", Map.of("r", 1L));
        }
        assertThat(counter.total()).as("requests while the bucket refills less than a batch").isZero();
        clock.advance(Duration.ofMillis(300));
        assertThat(limiter.tryAcquire("tenant", "api", Map.of("r", 1L)).admitted()).isTrue();
    }

    private void admitOrNot(RateLimiter limiter, List<Admission> admissions) {
        try (Lease lease = limiter.acquire("tenant", "api", Map.of("r", 1L))) {
            admissions.add(new Admission(clock.millis(), 1));
        } catch (RateLimitExceededException refused) {
            // counted by the caller's totals
        }
    }

    /** For every pair of admission instants: admitted between them ≤ capacity + what the grid credited between. */
    private static void assertWithinBound(List<Admission> admissions, Limit limit) {
        Limits.Parameters p = Limits.parametersAt(limit, 0);
        List<Admission> sorted = admissions.stream().sorted((a, b) -> Long.compare(a.at(), b.at())).toList();
        long[] grid = sorted.stream().mapToLong(a -> FullAt.grid(a.at(), p).longValueExact()).toArray();
        for (int i = 0; i < sorted.size(); i++) {
            long sum = 0;
            for (int j = i; j < sorted.size(); j++) {
                sum += sorted.get(j).amount();
                if (j + 1 < sorted.size() && sorted.get(j + 1).at() == sorted.get(j).at()) {
                    continue;
                }
                if (sum * Limits.MILLI > p.capacityMilli() + grid[j] - grid[i]) {
                    assertThat(sum * Limits.MILLI).as("admitted from %d to %d ms", sorted.get(i).at(),
                            sorted.get(j).at()).isLessThanOrEqualTo(p.capacityMilli() + grid[j] - grid[i]);
                }
            }
        }
    }
}
