package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.store.AuditStore;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The audit log in the store's table, in its own key space: one item per event.
 * <pre>
 * PK                    SK                        GSI1PK    GSI1SK
 * {ns}#A#S              {at ms, 15 digits}#{id}   {ns}#A    (the SK)       system level
 * {ns}#A#R#{resource}   ...                                                resource level
 * {ns}#A#E#{entity}     ...                                                an entity, its record and resources
 * </pre>
 * Attributes: {@code id}, {@code at} (ms), {@code act} (actor), {@code ac} (action), {@code ent}, {@code res},
 * {@code bf}, {@code af} (before, after) and {@code ttl}. Reads query one partition (GSI1 for every event), newest
 * first; a page's cursor is the sort key of its last event.
 */
final class AuditItems implements AuditStore {

    static final Duration DEFAULT_RETENTION = Duration.ofDays(730);

    private final DeadlineDynamoDbClient client;
    private final String table;
    private final Keys keys;
    private final Clock clock;
    private final Duration retention;

    AuditItems(DeadlineDynamoDbClient client, String table, Keys keys, Clock clock, Duration retention) {
        this.client = client;
        this.table = table;
        this.keys = keys;
        this.clock = clock;
        this.retention = retention;
    }

    @Override
    public void append(AuditEvent event) {
        String sk = AuditQuery.sortKey(event);
        Map<String, AttributeValue> item = new HashMap<>(Keys.key(pk(event.entityId(), event.resource()), sk));
        item.put(Keys.GSI1PK, AttributeValue.fromS(globalPk()));
        item.put(Keys.GSI1SK, AttributeValue.fromS(sk));
        item.put("id", AttributeValue.fromS(event.id()));
        item.put("at", ItemCodec.number(event.at().toEpochMilli()));
        item.put("act", AttributeValue.fromS(event.actor()));
        item.put("ac", AttributeValue.fromS(event.action()));
        putIfSet(item, "ent", event.entityId());
        putIfSet(item, "res", event.resource());
        putIfSet(item, "bf", event.before());
        putIfSet(item, "af", event.after());
        item.put(ItemCodec.TTL, ItemCodec.number(event.at().plus(retention).getEpochSecond()));
        try {
            client.putItem(b -> b.tableName(table).item(item));
        } catch (SdkException e) {
            throw DynamoDbStore.unavailable(table, "write audit event", e);
        }
    }

    @Override
    public AuditPage read(AuditQuery query) {
        boolean global = query.target() == AuditQuery.Target.ALL;
        String pkName = global ? Keys.GSI1PK : Keys.PK;
        String skName = global ? Keys.GSI1SK : Keys.SK;
        String pk = switch (query.target()) {
            case ALL -> globalPk();
            case SYSTEM -> pk(null, null);
            case RESOURCE -> pk(null, query.resource());
            case ENTITY -> pk(query.entityId(), null);
        };
        String low = query.from() == null ? "0" : String.format("%015d", query.from().toEpochMilli());
        String high = query.to() == null ? "9" : String.format("%015d", query.to().toEpochMilli());
        if (query.cursor() != null && query.cursor().compareTo(high) < 0) {
            high = query.cursor();
        }
        QueryRequest.Builder request = QueryRequest.builder().tableName(table)
                .keyConditionExpression("#pk = :p AND #sk BETWEEN :lo AND :hi")
                .expressionAttributeNames(Map.of("#pk", pkName, "#sk", skName))
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(pk), ":lo", AttributeValue.fromS(low),
                        ":hi", AttributeValue.fromS(high)))
                .scanIndexForward(false)
                .limit(query.pageSize() + 1);
        if (global) {
            request.indexName(Keys.GSI1);
        }
        String boundary = high;
        List<AuditEvent> page = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        try {
            do {
                QueryResponse response = client.query(request.exclusiveStartKey(start).build());
                for (Map<String, AttributeValue> item : response.items()) {
                    AuditEvent event = decode(item);
                    if (AuditQuery.sortKey(event).equals(boundary) || !query.matches(event) || expired(item)) {
                        continue;
                    }
                    if (page.size() == query.pageSize()) {
                        return new AuditPage(page, AuditQuery.sortKey(page.get(page.size() - 1)));
                    }
                    page.add(event);
                }
                start = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
                        ? response.lastEvaluatedKey() : null;
            } while (start != null);
        } catch (SdkException e) {
            throw DynamoDbStore.unavailable(table, "read audit log", e);
        }
        return new AuditPage(page, null);
    }

    private boolean expired(Map<String, AttributeValue> item) {
        AttributeValue ttl = item.get(ItemCodec.TTL);
        return ttl != null && Long.parseLong(ttl.n()) * 1000 <= clock.millis();
    }

    private AuditEvent decode(Map<String, AttributeValue> item) {
        try {
            return new AuditEvent(item.get("id").s(), Instant.ofEpochMilli(ItemCodec.longOf(item.get("at"))),
                    item.get("act").s(), item.get("ac").s(), text(item, "ent"), text(item, "res"), text(item, "bf"),
                    text(item, "af"));
        } catch (RuntimeException e) {
            throw new CorruptStateException("DynamoDB table " + table + " holds an audit item it cannot read ("
                    + e.getMessage() + ")", e);
        }
    }

    private static String text(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null ? null : value.s();
    }

    private static void putIfSet(Map<String, AttributeValue> item, String name, String value) {
        if (value != null) {
            item.put(name, AttributeValue.fromS(value));
        }
    }

    private String pk(String entityId, String resource) {
        if (entityId != null) {
            return keys.namespace() + "#A#E#" + entityId;
        }
        return resource == null ? keys.namespace() + "#A#S" : keys.namespace() + "#A#R#" + resource;
    }

    private String globalPk() {
        return keys.namespace() + "#A";
    }
}
