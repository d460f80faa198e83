package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Entity;
import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.Limit;
import dev.zaelimiter.contract.SizeLimitsContract;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.LimiterStore;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DynamoDbSizeLimitsContractTest extends SizeLimitsContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }

    private Map<String, AttributeValue> item(Map<String, AttributeValue> key) {
        DynamoDbStore dynamo = (DynamoDbStore) store;
        return DynamoDbTestStores.client().getItem(b -> b.tableName(dynamo.table()).key(key).consistentRead(true))
                .item();
    }

    /** The maxima leave a wide margin below DynamoDB's 400 KB per item (the figures docs/dynamodb.md gives). */
    @Test
    void itemsAtEveryMaximumStayFarBelowTheItemLimit() {
        Keys keys = new Keys(((DynamoDbStore) store).namespace());
        List<Limit> limits = widest(Limit.MAX_LIMITS_PER_LEVEL);
        admin.setLimits(LONG_ID, LONG_RESOURCE, limits);
        Map<String, Long> all = new HashMap<>();
        limits.forEach(l -> all.put(l.name(), Limit.MAX_TOKENS));
        for (int i = 0; i < 3; i++) {
            limiter.acquire(AcquireRequest.of(LONG_ID, LONG_RESOURCE).consume(all)).close();
        }
        String wideName = "\uD83D\uDE00".repeat(Identifiers.MAX_DISPLAY_NAME / 2);
        admin.createEntity(Entity.of(LONG_ID).withName(wideName));

        int config = ItemSize.bytes(item(keys.config(ConfigScope.entity(LONG_ID, LONG_RESOURCE))));
        int bucket = ItemSize.bytes(item(keys.bucket(new BucketKey(LONG_ID, LONG_RESOURCE))));
        int entity = ItemSize.bytes(item(keys.entity(LONG_ID)));
        assertThat(config).as("widest configuration item").isBetween(100_000, 200_000);
        assertThat(bucket).as("widest bucket item").isLessThan(10_000);
        assertThat(entity).as("widest entity item").isLessThan(3_000);
    }
}
