package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An item damaged outside the limiter (by hand, by another tool) ends in a typed {@link CorruptStateException}
 * that names it, under either policy: {@code BLOCK} raises it, {@code ALLOW} admits unrecorded. Nothing is written
 * over the damaged item, and the admin API repairs it. Items are damaged with the raw client on dynalite.
 */
class DynamoDbCorruptItemTest {

    private static final String RESOURCE = "api";
    private static final String USER = "user-1";

    private final MutableClock clock = MutableClock.start();
    private final DynamoDbClient raw = DynamoDbTestStores.client();
    private final DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), clock);
    private final Keys keys = new Keys(store.namespace());
    private final RateLimiter block = RateLimiter.builder().store(store).clock(clock).build();
    private final RateLimiter allow = RateLimiter.builder().store(store).clock(clock)
            .onUnavailable(Unavailable.ALLOW).build();

    @AfterEach
    void close() {
        store.close();
    }

    private Map<String, AttributeValue> item(Map<String, AttributeValue> key) {
        return raw.getItem(b -> b.tableName(store.table()).key(key).consistentRead(true)).item();
    }

    private Map<String, AttributeValue> bucketKey() {
        return keys.bucket(new BucketKey(USER, RESOURCE));
    }

    /**
     * A live bucket, then {@code attribute} of its item replaced by {@code value}. A balance ({@code b_}) belongs to
     * a limit that does not drip (a daily quota); every other attribute to a dripping limit of 10 a minute.
     */
    private Map<String, AttributeValue> damageBucket(String attribute, AttributeValue value) {
        block.admin().setResourceDefaults(RESOURCE, List.of(attribute.startsWith(ItemCodec.BALANCE)
                ? Limit.quota("rpm", 10, "0 0 * * *", java.time.ZoneOffset.UTC) : Limit.perMinute("rpm", 10)));
        block.acquire(USER, RESOURCE, Map.of("rpm", 1L)).close();
        Map<String, AttributeValue> item = new HashMap<>(item(bucketKey()));
        assertThat(item).containsKey(attribute);
        item.put(attribute, value);
        raw.putItem(b -> b.tableName(store.table()).item(item));
        return item;
    }

    @Test
    void aBalanceOfTheWrongTypeIsACorruptStateUnderBlockAndNothingIsWrittenOverIt() {
        Map<String, AttributeValue> damaged = damageBucket("b_rpm", AttributeValue.fromS("twelve"));

        assertThatThrownBy(() -> block.acquire(USER, RESOURCE, Map.of("rpm", 1L)))
                .isInstanceOf(CorruptStateException.class)
                .hasMessageContaining(store.table()).hasMessageContaining(USER + " on " + RESOURCE)
                .hasMessageContaining("twelve").hasMessageContaining("resetBucket");
        assertThatThrownBy(() -> block.checkAvailability(USER, RESOURCE, Map.of("rpm", 1L)))
                .isInstanceOf(CorruptStateException.class);
        assertThatThrownBy(() -> block.available(USER, RESOURCE)).isInstanceOf(CorruptStateException.class);
        assertThat(item(bucketKey())).as("nothing is written over the damaged item").isEqualTo(damaged);
    }

    /**
     * Whichever attribute is damaged, the outcome is typed: a {@link CorruptStateException} when the limiter reads
     * it, or the server's own refusal (as {@link StoreUnavailableException}) when an {@code ADD} meets a string.
     */
    @ParameterizedTest
    @ValueSource(strings = {"b_rpm", "t_rpm", "c_rpm", "v"})
    void aBucketAttributeOfTheWrongTypeIsATypedStoreErrorUnderBlock(String attribute) {
        damageBucket(attribute, AttributeValue.fromS("twelve"));

        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> block.acquire(USER, RESOURCE, Map.of("rpm", 1L)))
                    .isInstanceOf(StoreUnavailableException.class);
        }
    }

    /**
     * The deadline and the stamp only guard updates: the bucket is then written whole anew. A full-at point's
     * parameters are written by every update.
     */
    @ParameterizedTest
    @ValueSource(strings = {"dl", "cs", "q_rpm"})
    void aDamagedGuardAttributeIsRepairedByTheNextWrite(String attribute) {
        damageBucket(attribute, attribute.equals("dl") ? AttributeValue.fromS("soon") : AttributeValue.fromN("7"));

        assertThat(block.acquire(USER, RESOURCE, Map.of("rpm", 1L)).statuses()).singleElement()
                .satisfies(s -> assertThat(s.available()).isEqualTo(8));
        assertThat(block.acquire(USER, RESOURCE, Map.of("rpm", 1L)).statuses()).singleElement()
                .satisfies(s -> assertThat(s.available()).isEqualTo(7));
        assertThat(item(bucketKey()).get(attribute).type()).isEqualTo(attribute.equals("dl")
                ? AttributeValue.Type.N : AttributeValue.Type.S);
    }

    @ParameterizedTest
    @ValueSource(strings = {"b_rpm", "t_rpm", "c_rpm", "v"})
    void aBucketAttributeOfTheWrongTypeAdmitsUnrecordedUnderAllow(String attribute) {
        damageBucket(attribute, AttributeValue.fromS("twelve"));

        for (int i = 0; i < 3; i++) {
            Lease lease = allow.acquire(USER, RESOURCE, Map.of("rpm", 1L));
            assertThat(lease.degraded()).isTrue();
            lease.close();
        }
        assertThat(allow.checkAvailability(USER, RESOURCE, Map.of("rpm", 1L)).allowed()).isTrue();
    }

    @Test
    void aRealLeaseWhoseBucketIsDamagedLaterFollowsThePolicy() {
        block.admin().setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        Lease blocked = block.acquire(USER, RESOURCE, Map.of("rpm", 1L));
        Lease allowed = allow.acquire(USER, RESOURCE, Map.of("rpm", 1L));
        Map<String, AttributeValue> item = new HashMap<>(item(bucketKey()));
        item.put("t_rpm", AttributeValue.fromS("?"));
        raw.putItem(b -> b.tableName(store.table()).item(item));

        assertThatThrownBy(() -> blocked.adjust("rpm", -1)).isInstanceOf(CorruptStateException.class);
        allowed.rollback();
    }

    /** Every read refills from the instant of the last write. */
    @Test
    void aDamagedLastWriteIsACorruptStateWhenTheBucketIsRead() {
        damageBucket("lr", AttributeValue.fromS("twelve"));

        assertThatThrownBy(() -> block.available(USER, RESOURCE)).isInstanceOf(CorruptStateException.class);
        block.admin().resetBucket(USER, RESOURCE);
        assertThat(block.acquire(USER, RESOURCE, Map.of("rpm", 1L)).statuses()).singleElement()
                .satisfies(s -> assertThat(s.available()).isEqualTo(9));
    }

    @Test
    void resettingADamagedBucketRepairsIt() {
        damageBucket("b_rpm", AttributeValue.fromS("twelve"));
        assertThatThrownBy(() -> block.acquire(USER, RESOURCE, Map.of("rpm", 1L)))
                .isInstanceOf(CorruptStateException.class);

        block.admin().resetBucket(USER, RESOURCE);

        assertThat(block.acquire(USER, RESOURCE, Map.of("rpm", 1L)).statuses()).singleElement()
                .satisfies(s -> assertThat(s.available()).isEqualTo(9));
    }

    @Test
    void aFractionalOrHugeStoredNumberIsReadNotRejected() {
        damageBucket("b_rpm", AttributeValue.fromN("-1e30"));
        assertThatThrownBy(() -> block.acquire(USER, RESOURCE, Map.of("rpm", 1L)))
                .isInstanceOfSatisfying(RateLimitExceededException.class, e -> assertThat(e.statuses())
                        .singleElement().satisfies(s -> assertThat(s.available())
                                .isEqualTo(Math.floorDiv(Long.MIN_VALUE, Limits.MILLI))));

        block.admin().resetBucket(USER, RESOURCE);
        damageBucket("b_rpm", AttributeValue.fromN("4500.5"));
        assertThat(block.available(USER, RESOURCE)).containsEntry("rpm", 4L);
    }

    @Test
    void aDamagedConfigurationLevelIsACorruptStateNamingTheLevelAndSettingItAgainRepairsIt() {
        block.admin().setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        Map<String, AttributeValue> key = keys.config(ConfigScope.resource(RESOURCE));
        Map<String, AttributeValue> item = new HashMap<>(item(key));
        item.put(ItemCodec.LIMITS, AttributeValue.fromL(List.of(AttributeValue.fromM(Map.of(
                "n", AttributeValue.fromS("rpm"), "c", AttributeValue.fromS("ten"))))));
        raw.putItem(b -> b.tableName(store.table()).item(item));
        RateLimiter fresh = RateLimiter.builder().store(DynamoDbTestStores.builder(getClass(), clock)
                .namespace(store.namespace()).build()).clock(clock).build();
        RateLimiter freshAllow = RateLimiter.builder().store(DynamoDbTestStores.builder(getClass(), clock)
                .namespace(store.namespace()).build()).clock(clock).onUnavailable(Unavailable.ALLOW).build();

        assertThatThrownBy(() -> fresh.acquire(USER, RESOURCE, Map.of("rpm", 1L)))
                .isInstanceOf(CorruptStateException.class)
                .hasMessageContaining("resource " + RESOURCE).hasMessageContaining("ten");
        assertThatThrownBy(() -> fresh.admin().getResourceDefaults(RESOURCE))
                .isInstanceOf(CorruptStateException.class);
        assertThat(freshAllow.acquire(USER, RESOURCE, Map.of("rpm", 1L)).degraded()).isTrue();

        fresh.admin().setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 5)));
        assertThat(fresh.acquire(USER, RESOURCE, Map.of("rpm", 1L)).statuses()).singleElement()
                .satisfies(s -> assertThat(s.capacity()).isEqualTo(5));
    }

    @Test
    void aStoredLimitThatNoLongerValidatesIsACorruptState() {
        block.admin().setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
        Map<String, AttributeValue> key = keys.config(ConfigScope.system());
        Map<String, AttributeValue> item = new HashMap<>(item(key));
        item.put(ItemCodec.LIMITS, AttributeValue.fromL(List.of(AttributeValue.fromM(Map.of(
                "n", AttributeValue.fromS("rpm"), "c", AttributeValue.fromN("0"),
                "a", AttributeValue.fromN("1"), "p", AttributeValue.fromN("1000"))))));
        raw.putItem(b -> b.tableName(store.table()).item(item));
        RateLimiter fresh = RateLimiter.builder().store(DynamoDbTestStores.builder(getClass(), clock)
                .namespace(store.namespace()).build()).clock(clock).build();

        assertThatThrownBy(() -> fresh.acquire(USER, RESOURCE, Map.of("rpm", 1L)))
                .isInstanceOf(CorruptStateException.class).hasMessageContaining("system");
    }

    @Test
    void aDamagedEntityRecordIsACorruptState() {
        block.admin().createEntity(Entity.of(USER).withName("first"));
        Map<String, AttributeValue> item = new HashMap<>(item(keys.entity(USER)));
        item.remove(ItemCodec.ID);
        raw.putItem(b -> b.tableName(store.table()).item(item));

        assertThatThrownBy(() -> block.admin().getEntity(USER))
                .isInstanceOf(CorruptStateException.class).hasMessageContaining("entity record of " + USER);
    }
}
