package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Clock;
import java.util.List;
import java.util.Map;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * The configuration items (one per level) and the per-process cache in front of them: a snapshot for an acquire is
 * read in one {@code BatchGetItem} on a cache miss; a level written here is dropped from this process's cache.
 */
final class ConfigItems {

    private final StoreCalls calls;
    private final Keys keys;
    private final ConfigCache cache;

    ConfigItems(StoreCalls calls, Keys keys, Clock clock, long stampTtlMillis) {
        this.calls = calls;
        this.keys = keys;
        this.cache = new ConfigCache(clock, stampTtlMillis, calls);
    }

    /** The entity record and the four levels that apply to {@code entityId} on {@code resource}. */
    ConfigSnapshot load(String entityId, String resource) {
        List<Map<String, AttributeValue>> items = calls.call("read configuration", () -> cache.get(List.of(
                keys.entity(entityId),
                keys.config(ConfigScope.entity(entityId, resource)),
                keys.config(ConfigScope.entity(entityId, DEFAULT_RESOURCE)),
                keys.config(ConfigScope.resource(resource)),
                keys.config(ConfigScope.system()))));
        try {
            return new ConfigSnapshot(ItemCodec.entity(items.get(0)), ItemCodec.level(items.get(1)),
                    ItemCodec.level(items.get(2)), ItemCodec.level(items.get(3)), ItemCodec.level(items.get(4)));
        } catch (RuntimeException e) {
            // find the item that cannot be read, to name it
            calls.decode("the entity record of " + entityId, () -> ItemCodec.entity(items.get(0)));
            calls.decode("the configuration level " + ConfigScope.entity(entityId, resource),
                    () -> ItemCodec.level(items.get(1)));
            calls.decode("the configuration level " + ConfigScope.entity(entityId, DEFAULT_RESOURCE),
                    () -> ItemCodec.level(items.get(2)));
            calls.decode("the configuration level " + ConfigScope.resource(resource),
                    () -> ItemCodec.level(items.get(3)));
            calls.decode("the configuration level " + ConfigScope.system(), () -> ItemCodec.level(items.get(4)));
            throw e;
        }
    }

    /** One level as stored, read consistently (not through the cache). */
    LevelConfig level(ConfigScope scope) {
        Map<String, AttributeValue> item = calls.getItem(keys.config(scope));
        return calls.decode("the configuration level " + scope, () -> ItemCodec.level(item));
    }

    /** Sets one attribute of a level, or removes it when {@code value} is {@code null}. */
    void put(ConfigScope scope, String attribute, AttributeValue value) {
        Map<String, AttributeValue> key = keys.config(scope);
        String table = calls.table();
        calls.call("write configuration", () -> {
            if (value == null) {
                calls.client().updateItem(b -> b.tableName(table).key(key).updateExpression("REMOVE #a")
                        .expressionAttributeNames(Map.of("#a", attribute)));
            } else {
                calls.client().updateItem(b -> b.tableName(table).key(key).updateExpression("SET #a = :v")
                        .expressionAttributeNames(Map.of("#a", attribute))
                        .expressionAttributeValues(Map.of(":v", value)));
            }
            return null;
        });
        cache.invalidate(key);
    }

    /** Drops the item under {@code key} from this process's cache. */
    void invalidate(Map<String, AttributeValue> key) {
        cache.invalidate(key);
    }

    /** Drops everything from this process's cache. */
    void clear() {
        cache.clear();
    }

    /** Lets the cache see the clock's reading now; for tests. */
    void observe() {
        cache.observe();
    }

    /** How many items the cache holds; for tests. */
    int cached() {
        return cache.size();
    }
}
