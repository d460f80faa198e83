package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two stores on one table and namespace, each with its own cache, stand for two processes: configuration changes
 * made by one reach the other within {@code stampTtl}, and racing first acquires both count.
 */
class DynamoDbSharedTableTest {

    private final MutableClock clock = MutableClock.start();
    private DynamoDbStore storeA;
    private RateLimiter processA;
    private RateLimiter processB;

    @BeforeEach
    void setUp() {
        storeA = DynamoDbTestStores.builder(getClass(), clock).stampTtl(Duration.ofSeconds(30)).build();
        processA = RateLimiter.builder().store(storeA).clock(clock).build();
        processB = RateLimiter.builder().store(secondProcess(Dynalite.get().client())).clock(clock).build();
    }

    private DynamoDbStore secondProcess(software.amazon.awssdk.services.dynamodb.DynamoDbClient client) {
        return DynamoDbStore.builder().client(client).table(storeA.table()).namespace(storeA.namespace())
                .clock(clock).stampTtl(Duration.ofSeconds(30)).requestTimeout(DynamoDbTestStores.REQUEST_TIMEOUT)
                .build();
    }

    private long rpmSeenByB(String entity) {
        processB.acquire(entity, "gpt-4", Map.of("rpm", 1L)).rollback();
        return processB.available(entity, "gpt-4").get("rpm");
    }

    @Test
    void systemLevelChangeReachesTheOtherProcessWithinStampTtl() {
        processA.admin().setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
        assertThat(rpmSeenByB("user-1")).isEqualTo(10);
        processA.admin().setSystemDefaults(List.of(Limit.perMinute("rpm", 20)));
        assertThat(processA.available("user-2", "gpt-4")).as("the changing process sees it at once")
                .containsEntry("rpm", 20L);
        clock.advance(Duration.ofSeconds(29));
        assertThat(rpmSeenByB("user-2")).as("B still trusts its cache").isEqualTo(10);
        clock.advance(Duration.ofSeconds(2));
        assertThat(rpmSeenByB("user-3")).isEqualTo(20);
    }

    @Test
    void aClockThatStepsBackDoesNotMakeAStaleConfigurationFreshAgain() {
        processA.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10)));
        processA.admin().setResourceDefaults("other", List.of(Limit.perMinute("rpm", 10)));
        assertThat(rpmSeenByB("user-1")).isEqualTo(10);
        processA.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 20)));
        clock.advance(Duration.ofSeconds(31));
        processB.available("user-1", "other");      // B's clock shows a reading past gpt-4's stampTtl
        clock.advance(Duration.ofSeconds(-5));
        assertThat(rpmSeenByB("user-2")).as("stampTtl counts from the latest instant B's clock showed").isEqualTo(20);
    }

    @Test
    void aForwardStepTakenBackStillLetsChangesThroughWithinStampTtl() {
        processA.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10)));
        clock.advance(Duration.ofHours(1));
        assertThat(rpmSeenByB("user-1")).isEqualTo(10);   // B's clock shows an instant an hour ahead...
        clock.advance(Duration.ofHours(-1));              // ... and is set right again
        assertThat(rpmSeenByB("user-2")).isEqualTo(10);
        processA.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 20)));
        clock.advance(Duration.ofSeconds(29));
        assertThat(rpmSeenByB("user-3")).as("B still trusts its cache").isEqualTo(10);
        clock.advance(Duration.ofSeconds(2));
        assertThat(rpmSeenByB("user-4")).as("read 31 s ago: stale, not an hour from now").isEqualTo(20);
    }

    @Test
    void eachLevelChangeReachesTheOtherProcessWithinStampTtl() {
        processA.admin().setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
        assertThat(rpmSeenByB("user-1")).isEqualTo(10);

        processA.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 11)));
        clock.advance(Duration.ofSeconds(31));
        assertThat(rpmSeenByB("user-1")).isEqualTo(11);

        processA.admin().setLimits("user-1", "_default_", List.of(Limit.perMinute("rpm", 12)));
        clock.advance(Duration.ofSeconds(31));
        assertThat(rpmSeenByB("user-1")).isEqualTo(12);

        processA.admin().setLimits("user-1", "gpt-4", List.of(Limit.perMinute("rpm", 13)));
        clock.advance(Duration.ofSeconds(31));
        assertThat(rpmSeenByB("user-1")).isEqualTo(13);

        processA.admin().setEntityDisabled("user-1", "gpt-4", DisabledMode.DISABLED);
        clock.advance(Duration.ofSeconds(31));
        assertThatThrownBy(() -> processB.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                .isInstanceOf(ResourceDisabledException.class);
    }

    @Test
    void aNewParentIsSeenByTheOtherProcessWithinStampTtl() {
        processA.admin().setSystemDefaults(List.of(Limit.perDay("rpm", 10)));
        processA.admin().createEntity("org-1");
        processA.admin().createEntity("org-2");
        processA.admin().createEntity(Entity.of("user-1").withParent("org-1").withCascade(true));
        processB.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        processA.admin().setParent("user-1", "org-2");
        clock.advance(Duration.ofSeconds(31));
        processB.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        assertThat(processA.available("org-1", "gpt-4")).containsEntry("rpm", 9L);
        assertThat(processA.available("org-2", "gpt-4")).containsEntry("rpm", 9L);
    }

    @Test
    void aPauseReachesTheOtherProcessWithinStampTtl() {
        processA.admin().setSystemDefaults(List.of(Limit.perDay("rpm", 10)));
        processB.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        processA.pause("gpt-4", Duration.ofMinutes(5));
        clock.advance(Duration.ofSeconds(31));
        assertThatThrownBy(() -> processB.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                .isInstanceOf(dev.zaelimiter.ResourcePausedException.class);
        processA.resume("gpt-4");
        clock.advance(Duration.ofSeconds(31));
        processB.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
    }

    @Test
    void racingFirstAcquiresLeaveOneBucketWithBothDebits() throws Exception {
        processA.admin().setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
        CyclicBarrier bothInFlight = new CyclicBarrier(2);
        java.util.concurrent.atomic.AtomicInteger firstWrites = new java.util.concurrent.atomic.AtomicInteger();
        ExecutionInterceptor together = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest update
                        && update.key().get("SK").s().startsWith("#B#") && firstWrites.incrementAndGet() <= 2) {
                    try {
                        bothInFlight.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                        throw new AssertionError("both processes should write the missing bucket together", e);
                    }
                }
            }
        };
        RequestCounter counter = new RequestCounter();
        RateLimiter racerA = RateLimiter.builder().store(secondProcess(Dynalite.get().client(counter, together)))
                .clock(clock).build();
        RateLimiter racerB = RateLimiter.builder().store(secondProcess(Dynalite.get().client(counter, together)))
                .clock(clock).build();

        CompletableFuture<?> a = CompletableFuture.runAsync(() -> racerA.acquire("user-1", "gpt-4", Map.of("rpm", 3L)));
        CompletableFuture<?> b = CompletableFuture.runAsync(() -> racerB.acquire("user-1", "gpt-4", Map.of("rpm", 4L)));
        CompletableFuture.allOf(a, b).get(30, TimeUnit.SECONDS);

        assertThat(counter.count("UpdateItem")).as("both created it; the loser read it and wrote again")
                .isEqualTo(3);
        assertThat(counter.count("GetItem")).isEqualTo(1);
        assertThat(counter.count("PutItem")).isZero();
        assertThat(processA.available("user-1", "gpt-4")).containsEntry("rpm", 3L);
    }

    @Test
    void defaultDerivedBucketsExpireAndEntityBucketsDoNot() {
        processA.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 10)));
        processA.admin().setLimits("vip", "gpt-4", List.of(Limit.perMinute("rpm", 100)));
        processA.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        processA.acquire("vip", "gpt-4", Map.of("rpm", 1L));

        Map<String, AttributeValue> shared = bucketItem("user-1");
        assertThat(shared).containsKey("ttl");
        long ttlMillis = Long.parseLong(shared.get("ttl").n()) * 1000;
        assertThat(ttlMillis).as("outlives the stamp deadline and a refill from empty")
                .isGreaterThan(clock.millis() + Duration.ofSeconds(30 + 60).toMillis());
        assertThat(bucketItem("vip")).doesNotContainKey("ttl");
    }

    @Test
    void aBucketPastItsTtlButNotYetDeletedIsTreatedAsAbsent() {
        processA.admin().setResourceDefaults("gpt-4", List.of(Limit.perDay("rpd", 10)));
        processA.acquire("user-1", "gpt-4", Map.of("rpd", 10L));
        long ttlMillis = Long.parseLong(bucketItem("user-1").get("ttl").n()) * 1000;
        clock.set(java.time.Instant.ofEpochMilli(ttlMillis));
        Map<String, AttributeValue> stillThere = bucketItem("user-1");
        assertThat(stillThere).isNotEmpty();
        assertThat(processA.available("user-1", "gpt-4")).containsEntry("rpd", 10L);
        processA.acquire("user-1", "gpt-4", Map.of("rpd", 10L));
    }

    @Test
    void aBucketOfEightLimitsFitsInOneWriteUnit() {
        List<Limit> eight = List.of(Limit.perSecond("rps", 10), Limit.perMinute("rpm", 100),
                Limit.perHour("rph", 1000), Limit.perDay("rpd", 10_000), Limit.perMinute("tpm", 1_000_000),
                Limit.perDay("tpd", 100_000_000), Limit.perMinute("images", 50), Limit.perHour("cost_usd", 5000));
        processA.admin().setResourceDefaults("openai/gpt-4o", eight);
        Map<String, Long> all = new java.util.HashMap<>();
        eight.forEach(l -> all.put(l.name(), 1L));
        processA.acquire("user-0123456789abcdef", "openai/gpt-4o", all);
        var item = DynamoDbTestStores.client().getItem(r -> r.tableName(storeA.table())
                .key(new Keys(storeA.namespace()).bucket(new dev.zaelimiter.store.BucketKey("user-0123456789abcdef",
                        "openai/gpt-4o")))).item();
        assertThat(ItemSize.bytes(item)).isLessThan(1024);
    }

    private Map<String, AttributeValue> bucketItem(String entity) {
        return DynamoDbTestStores.client().getItem(r -> r.tableName(storeA.table())
                .key(new Keys(storeA.namespace()).bucket(new dev.zaelimiter.store.BucketKey(entity, "gpt-4")))
                .consistentRead(true)).item();
    }
}
