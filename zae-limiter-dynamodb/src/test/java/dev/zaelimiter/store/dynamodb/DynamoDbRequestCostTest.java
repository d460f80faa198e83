package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What each call path costs in requests, counted on the wire with an SDK interceptor. Usage history is flushed only on
 * demand here, so that a slow run cannot add a background flush to the counts.
 */
class DynamoDbRequestCostTest {

    private final MutableClock clock = MutableClock.start();
    private final RequestCounter counter = new RequestCounter();
    private RateLimiter limiter;

    @BeforeEach
    void setUp() {
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock)
                .client(Dynalite.get().client(counter)).build();
        limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1000),
                Limit.perMinute("tpm", 100_000)));
    }

    @Test
    void steadyStateAdmittedAcquireIsOneUpdateItemAndNoRead() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L));
        counter.reset();
        for (int i = 0; i < 50; i++) {
            clock.advance(Duration.ofMillis(100));
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        }
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 50L));
    }

    @Test
    void aReadingAFewMillisecondsBehindTheLoadDoesNotReloadTheConfiguration() {
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMillis(7));
            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1000 + i),
                    Limit.perMinute("tpm", 100_000)));
            counter.reset();
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();   // loads the change
            clock.advance(Duration.ofMillis(-5));      // another thread read the clock first and calls second
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
            assertThat(counter.snapshot().get("BatchGetItem")).as("loads after change %d", i).isEqualTo(1L);
        }
    }

    @Test
    void aCallWithAPerCallOverrideReadsAndWritesTheBucketOnceAndLeavesItOnTheFastPath() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        counter.reset();
        limiter.acquire(dev.zaelimiter.AcquireRequest.of("user-1", "gpt-4").consume("rpm", 1)
                .limits(List.of(Limit.perMinute("rpm", 5)))).close();
        assertThat(counter.snapshot()).isEqualTo(Map.of("GetItem", 1L, "PutItem", 1L));
        counter.reset();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        assertThat(counter.snapshot()).as("the bucket is still kept under the stored limits")
                .isEqualTo(Map.of("UpdateItem", 1L));
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 997L);
    }

    @Test
    void aFixedWindowCostsOneUpdatePerCallAndOneRewriteAtTheFirstCallOfEachWindow() {
        limiter.admin().setResourceDefaults("sms", List.of(Limit.fixedWindow("per1s", 100, Duration.ofSeconds(1))));
        clock.set(java.time.Instant.parse("2026-06-15T10:00:00.100Z"));
        limiter.acquire("user-1", "sms", Map.of("per1s", 1L)).close();
        counter.reset();
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMillis(100));
            limiter.acquire("user-1", "sms", Map.of("per1s", 1L)).close();
        }
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 5L));
        clock.set(java.time.Instant.parse("2026-06-15T10:00:01Z"));
        counter.reset();
        limiter.acquire("user-1", "sms", Map.of("per1s", 1L)).close();
        assertThat(counter.snapshot()).as("the deadline stops the update at the boundary; the item is rewritten")
                .isEqualTo(Map.of("UpdateItem", 1L, "GetItem", 1L, "PutItem", 1L));
        counter.reset();
        limiter.acquire("user-1", "sms", Map.of("per1s", 1L)).close();
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 1L));
        assertThat(limiter.available("user-1", "sms")).containsEntry("per1s", 98L);
    }

    @Test
    void firstAcquireReadsConfigurationInOneBatchAndCreatesTheBucketInOneUpdate() {
        counter.reset();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        assertThat(counter.snapshot()).as("one BatchGetItem for the configuration, one conditional update that"
                + " creates the bucket").isEqualTo(Map.of("BatchGetItem", 1L, "UpdateItem", 1L));
    }

    @Test
    void theFirstCallAfterAnIdleSpellIsOneUpdate() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 10L));
        clock.advance(Duration.ofSeconds(6));
        counter.reset();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 2L));
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 998L);
    }

    @Test
    void configurationIsReadAgainOnlyAfterStampTtl() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        counter.reset();
        clock.advance(Duration.ofSeconds(59));
        limiter.acquire("user-2", "gpt-4", Map.of("rpm", 1L));
        assertThat(counter.count("BatchGetItem")).as("user-2's own levels are a miss").isEqualTo(1);
        counter.reset();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        assertThat(counter.count("BatchGetItem")).isZero();
        clock.advance(Duration.ofSeconds(2));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        assertThat(counter.count("BatchGetItem")).isEqualTo(1);
    }

    @Test
    void aProcessThatKnowsNothingOfAnExhaustedBucketPaysOneRefusedUpdateAndOneRead() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1000L));
        RateLimiter other = otherProcess();
        other.available("user-1", "gpt-4");
        counter.reset();
        assertThatThrownBy(() -> other.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(counter.snapshot()).as("one refused conditional update; the test server returns no old item,"
                + " so one read (real DynamoDB returns it with the failure); no write")
                .isEqualTo(Map.of("UpdateItem", 1L, "GetItem", 1L));
    }

    @Test
    void refusalsOfABucketKnownToBeShortCostNothingUntilItRefills() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1000L));
        counter.reset();
        RateLimitExceededException first = null;
        for (int i = 0; i < 5; i++) {
            try {
                limiter.acquire("user-1", "gpt-4", Map.of("rpm", 2L));
            } catch (RateLimitExceededException e) {
                first = first == null ? e : first;
            }
        }
        assertThat(first).isNotNull();
        assertThat(first.retryAfter()).isBetween(Duration.ofMillis(119), Duration.ofMillis(120));
        assertThat(counter.snapshot()).as("refused from what the admitted call returned").isEmpty();
        clock.advance(first.retryAfter());
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 2L));
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 1L));
    }

    @Test
    void aCallReadingTheClockJustBeforeARefusalsReadIsRefusedWithoutARequest() {
        otherProcess().acquire("user-1", "gpt-4", Map.of("rpm", 1000L));
        clock.advance(Duration.ofMillis(10));
        Duration atRead = refused(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L))).retryAfter();
        clock.advance(Duration.ofMillis(-1));           // another thread read the clock first and calls second
        counter.reset();
        Duration behind = refused(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L))).retryAfter();
        assertThat(counter.snapshot()).as("refused from the bucket as of its last write, before the read").isEmpty();
        assertThat(behind).isEqualTo(atRead.plusMillis(1));
    }

    @Test
    void aCallReadingTheClockBeforeTheLastWriteIsRefusedWithoutARequestCountingFromThatWrite() {
        otherProcess().acquire("user-1", "gpt-4", Map.of("rpm", 1000L));
        clock.advance(Duration.ofMillis(10));
        Duration atRead = refused(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L))).retryAfter();
        clock.advance(Duration.ofMillis(-15));
        counter.reset();
        Duration behind = refused(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L))).retryAfter();
        assertThat(counter.snapshot()).isEmpty();
        assertThat(behind).as("the reading counts as the last write's time, 10 ms before the read")
                .isEqualTo(atRead.plusMillis(10));
        assertThat(limiter.available("user-1", "gpt-4")).as("no debt").containsEntry("rpm", 0L);
    }

    @Test
    void aProcessWhoseClockLagsTrustsARefusalForASecondOfItsOwnClockNotOfTheWritersClock() {
        MutableClock ahead = new MutableClock(clock.instant().plus(Duration.ofMinutes(10)));
        RateLimiter writer = otherProcess(ahead);
        writer.acquire("user-1", "gpt-4", Map.of("rpm", 1000L));
        refused(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)));
        ahead.advance(Duration.ofSeconds(30));
        writer.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        clock.advance(Duration.ofMillis(1_100));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        assertThat(writer.available("user-1", "gpt-4")).as("the writer's refill of 500, less two calls")
                .containsEntry("rpm", 498L);
    }

    @Test
    void aBucketRefillingAfterExhaustionIsOneUpdatePerCall() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1000L));
        clock.advance(Duration.ofSeconds(30));
        counter.reset();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 10L));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 10L));
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 2L));
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 480L);
    }

    @Test
    void aWrongGuessCostsOneReadAndOneMoreUpdate() {
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        clock.advance(Duration.ofSeconds(50));
        otherProcess().acquire("user-1", "gpt-4", Map.of("rpm", 500L));
        counter.reset();
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        assertThat(counter.snapshot()).as("guessed full, found busy: one read, then the right update")
                .isEqualTo(Map.of("UpdateItem", 2L, "GetItem", 1L));
        assertThat(limiter.available("user-1", "gpt-4")).containsEntry("rpm", 499L);
    }

    private static RateLimitExceededException refused(ThrowingCallable call) {
        return catchThrowableOfType(RateLimitExceededException.class, call);
    }

    private RateLimiter otherProcess() {
        return otherProcess(clock);
    }

    private RateLimiter otherProcess(MutableClock clock) {
        DynamoDbStore store = DynamoDbStore.builder().client(Dynalite.get().client(counter))
                .table(DynamoDbTestStores.table(getClass())).namespace(namespaceOf(limiter)).clock(clock)
                .requestTimeout(DynamoDbTestStores.REQUEST_TIMEOUT).build();
        return RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO).build();
    }

    @Test
    void cascadeWritesChildAndParentConcurrently() {
        limiter.admin().createEntity("org-1");
        limiter.admin().createEntity(Entity.of("user-1").withParent("org-1").withCascade(true));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        CyclicBarrier bothInFlight = new CyclicBarrier(2);
        ExecutionInterceptor gate = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest) {
                    try {
                        bothInFlight.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                        throw new AssertionError("the two cascade writes were not in flight together", e);
                    }
                }
            }
        };
        RequestCounter gatedCounter = new RequestCounter();
        DynamoDbStore gated = DynamoDbStore.builder().client(Dynalite.get().client(gatedCounter, gate))
                .table(DynamoDbTestStores.table(getClass())).namespace(namespaceOf(limiter)).clock(clock)
                .requestTimeout(DynamoDbTestStores.REQUEST_TIMEOUT).build();
        RateLimiter second = RateLimiter.builder().store(gated).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        second.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        gatedCounter.reset();

        second.acquire("user-1", "gpt-4", Map.of("rpm", 1L));

        assertThat(gatedCounter.snapshot()).isEqualTo(Map.of("UpdateItem", 2L));
        assertThat(limiter.available("org-1", "gpt-4")).containsEntry("rpm", 997L);
    }

    @Test
    void theConfigurationCacheForgetsEntriesThatExpired() {
        for (int i = 0; i < 50; i++) {
            limiter.acquire("user-" + i, "gpt-4", Map.of("rpm", 1L));
        }
        DynamoDbStore store = (DynamoDbStore) limiter.store();
        assertThat(store.configCacheSizeForTest()).isGreaterThanOrEqualTo(100);
        clock.advance(Duration.ofMinutes(2));
        for (int i = 0; i < 4096; i++) {
            limiter.available("user-0", "gpt-4");
        }
        assertThat(store.configCacheSizeForTest()).as("only user-0's levels and the shared ones")
                .isLessThanOrEqualTo(5);
    }

    private static String namespaceOf(RateLimiter limiter) {
        return ((DynamoDbStore) limiter.store()).namespace();
    }
}
