package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The entity records and everything under an entity's partition: creating, reading, replacing and deleting an
 * entity (with its configuration levels and buckets), listing its configured resources and its children.
 */
final class EntityItems {

    private final StoreCalls calls;
    private final Keys keys;
    private final ConfigItems config;

    EntityItems(StoreCalls calls, Keys keys, ConfigItems config) {
        this.calls = calls;
        this.keys = keys;
        this.config = config;
    }

    void create(Entity entity) {
        put(entity, "create entity", "attribute_not_exists(PK)", () -> new EntityExistsException(entity.id()));
    }

    Optional<Entity> get(String entityId) {
        Map<String, AttributeValue> item = calls.getItem(keys.entity(entityId));
        return Optional.ofNullable(calls.decode("the entity record of " + entityId, () -> ItemCodec.entity(item)));
    }

    void update(Entity entity) {
        put(entity, "update entity", "attribute_exists(PK)", () -> new EntityNotFoundException(entity.id()));
    }

    /** Writes the entity record if {@code condition} holds, else raises what {@code refused} makes. */
    private void put(Entity entity, String what, String condition, Supplier<RuntimeException> refused) {
        try {
            calls.call(what, () -> calls.client().putItem(b -> b.tableName(calls.table())
                    .item(ItemCodec.entityItem(keys, entity))
                    .conditionExpression(condition)));
        } catch (ConditionalCheckFailedException e) {
            throw refused.get();
        }
        config.invalidate(keys.entity(entity.id()));
    }

    /**
     * Deletes every item of the entity's partition, 25 per batch, first passing the key of each bucket among them to
     * {@code forget}; whether the entity record was among them.
     */
    boolean delete(String entityId, Consumer<BucketKey> forget) {
        String table = calls.table();
        List<Map<String, AttributeValue>> items = calls.queryAll(QueryRequest.builder().tableName(table)
                .keyConditionExpression("PK = :pk")
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(keys.entityPk(entityId))))
                .projectionExpression("PK, SK")
                .consistentRead(true)
                .build());
        boolean existed = items.stream().anyMatch(item -> Keys.META.equals(item.get(Keys.SK).s()));
        for (Map<String, AttributeValue> item : items) {
            String sk = item.get(Keys.SK).s();
            if (Keys.isBucketSk(sk)) {
                forget.accept(Keys.bucketKey(entityId, sk));
            }
        }
        for (int i = 0; i < items.size(); i += 25) {
            List<WriteRequest> deletes = items.subList(i, Math.min(items.size(), i + 25)).stream()
                    .map(item -> WriteRequest.builder().deleteRequest(DeleteRequest.builder()
                            .key(Keys.key(item.get(Keys.PK).s(), item.get(Keys.SK).s())).build()).build())
                    .toList();
            Map<String, List<WriteRequest>> request = Map.of(table, deletes);
            calls.call("delete entity", () -> {
                Map<String, List<WriteRequest>> pending = request;
                while (!pending.isEmpty()) {
                    Map<String, List<WriteRequest>> next = pending;
                    var response = calls.client().batchWriteItem(b -> b.requestItems(next));
                    pending = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
                }
                return null;
            });
        }
        config.clear();
        return existed;
    }

    /** The entity's own configuration levels, by resource. */
    List<ConfigScope> scopes(String entityId) {
        String prefix = Keys.CONFIG + "#";
        List<Map<String, AttributeValue>> items = calls.queryAll(QueryRequest.builder().tableName(calls.table())
                .keyConditionExpression("PK = :pk AND begins_with(SK, :cfg)")
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(keys.entityPk(entityId)),
                        ":cfg", AttributeValue.fromS(prefix)))
                .projectionExpression("PK, SK")
                .consistentRead(true)
                .build());
        return items.stream()
                .map(item -> ConfigScope.entity(entityId, item.get(Keys.SK).s().substring(prefix.length())))
                .sorted(Comparator.comparing(ConfigScope::resource))
                .toList();
    }

    /** The entities whose parent is {@code parentId}, by id, read through index {@code GSI1}. */
    List<Entity> children(String parentId) {
        List<Map<String, AttributeValue>> items = calls.queryAll(QueryRequest.builder().tableName(calls.table())
                .indexName(Keys.GSI1)
                .keyConditionExpression("GSI1PK = :p")
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(keys.parentIndexPk(parentId))))
                .build());
        return items.stream()
                .map(item -> calls.decode("a child record of " + parentId, () -> ItemCodec.entity(item)))
                .filter(e -> parentId.equals(e.parentId()))
                .sorted(Comparator.comparing(Entity::id))
                .toList();
    }
}
