package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.store.UsagePeriod;
import dev.zaelimiter.store.UsageStore;
import dev.zaelimiter.store.UsageWrite;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The usage history in the store's table, in its own key space: one item per bucket and period.
 * <pre>
 * PK                                   SK         GSI1PK            GSI1SK
 * {ns}#U#{resource}#H#{yyyy-MM-ddTHH}  {entity}   {ns}#UE#{entity}  H#{yyyy-MM-ddTHH}#{resource}
 * {ns}#U#{resource}#D#{yyyy-MM-dd}     {entity}   {ns}#UE#{entity}  D#{yyyy-MM-dd}#{resource}
 * </pre>
 * Attributes: {@code ent}, {@code res}, {@code g} (H or D), {@code ps} (period start, ms), per limit
 * {@code uc_} consumed (milli-tokens), {@code ua_} admitted, {@code ur_} refused, {@code uo_} overdrawn,
 * {@code ub_} bypassed and {@code ud_} degraded (milli-tokens), per writer {@code uw_{writer}} the last sequence applied, and {@code ttl}.
 * A write is one conditional {@code UpdateItem} that adds the counts only if the writer's recorded sequence is lower.
 * A resource's period is one partition (what a top-N query reads); an entity's periods are found through GSI1.
 */
final class UsageItems implements UsageStore {

    static final Duration DEFAULT_HOUR_RETENTION = Duration.ofDays(90);
    static final Duration DEFAULT_DAY_RETENTION = Duration.ofDays(730);

    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);
    /** The attribute prefix of each count, in the order of {@link UsageCounts}' components. */
    private static final List<String> ORDER = List.of("uc_", "ua_", "ur_", "uo_", "ub_", "ud_");

    private final DeadlineDynamoDbClient client;
    private final String table;
    private final Keys keys;
    private final Clock clock;
    private final Duration hourRetention;
    private final Duration dayRetention;

    UsageItems(DeadlineDynamoDbClient client, String table, Keys keys, Clock clock, Duration hourRetention,
            Duration dayRetention) {
        this.client = client;
        this.table = table;
        this.keys = keys;
        this.clock = clock;
        this.hourRetention = hourRetention;
        this.dayRetention = dayRetention;
    }

    @Override
    public boolean add(UsageWrite write) {
        UsagePeriod period = write.period();
        String label = label(period.granularity(), period.startMillis());
        Map<String, String> names = new HashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        List<String> adds = new ArrayList<>();
        int i = 0;
        for (Map.Entry<String, UsageCounts> limit : period.limits().entrySet()) {
            UsageCounts c = limit.getValue();
            long[] counts = {c.consumedMilli(), c.admitted(), c.refused(), c.overdrawn(), c.bypassedMilli(),
                c.degradedMilli()};
            for (int k = 0; k < counts.length; k++) {
                if (counts[k] != 0) {
                    names.put("#n" + i, ORDER.get(k) + limit.getKey());
                    values.put(":n" + i, ItemCodec.number(counts[k]));
                    adds.add("#n" + i + " :n" + i);
                    i++;
                }
            }
        }
        long retention = (period.granularity() == UsageGranularity.HOUR ? hourRetention : dayRetention).toSeconds();
        long expires = (period.startMillis() + period.granularity().millis()) / 1000 + retention;
        names.put("#w", "uw_" + write.writerId());
        names.put("#ttl", ItemCodec.TTL);
        values.put(":seq", ItemCodec.number(write.sequence()));
        values.put(":ttl", ItemCodec.number(expires));
        values.put(":ent", AttributeValue.fromS(period.key().entityId()));
        values.put(":res", AttributeValue.fromS(period.key().resource()));
        values.put(":g", AttributeValue.fromS(code(period.granularity())));
        values.put(":ps", ItemCodec.number(period.startMillis()));
        values.put(":gpk", AttributeValue.fromS(entityIndexPk(period.key().entityId())));
        values.put(":gsk", AttributeValue.fromS(code(period.granularity()) + "#" + label + "#"
                + period.key().resource()));
        String update = "SET #w = :seq, #ttl = :ttl, ent = :ent, res = :res, g = :g, ps = :ps, GSI1PK = :gpk,"
                + " GSI1SK = :gsk" + (adds.isEmpty() ? "" : " ADD " + String.join(", ", adds));
        try {
            client.updateItem(b -> b.tableName(table)
                    .key(Keys.key(resourcePk(period.key().resource(), period.granularity(), label),
                            period.key().entityId()))
                    .updateExpression(update)
                    .conditionExpression("attribute_not_exists(#w) OR #w < :seq")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        } catch (AwsServiceException e) {
            if (e.awsErrorDetails() != null && "ValidationException".equals(e.awsErrorDetails().errorCode())) {
                throw new ValidationException("usage period", period.key() + " " + label, "DynamoDB rejects its"
                        + " write: " + e.getMessage());
            }
            throw DynamoDbStore.unavailable(table, "write usage history", e);
        } catch (SdkException e) {
            throw DynamoDbStore.unavailable(table, "write usage history", e);
        }
    }

    @Override
    public List<UsagePeriod> entityUsage(String entityId, String resource, UsageGranularity granularity,
            long fromMillis, long toMillis) {
        String g = code(granularity);
        List<Map<String, AttributeValue>> items = query(QueryRequest.builder().tableName(table).indexName(Keys.GSI1)
                .keyConditionExpression("GSI1PK = :p AND GSI1SK BETWEEN :lo AND :hi")
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(entityIndexPk(entityId)),
                        ":lo", AttributeValue.fromS(g + "#" + label(granularity, fromMillis)),
                        ":hi", AttributeValue.fromS(g + "#" + label(granularity, toMillis) + "#\uffff")))
                .build());
        List<UsagePeriod> found = new ArrayList<>();
        for (Map<String, AttributeValue> item : items) {
            UsagePeriod period = decode(item);
            if (period.startMillis() >= fromMillis && period.startMillis() < toMillis
                    && (resource == null || resource.equals(period.key().resource())) && live(item)) {
                found.add(period);
            }
        }
        return found;
    }

    @Override
    public List<UsagePeriod> resourceUsage(String resource, UsageGranularity granularity, long fromMillis,
            long toMillis) {
        List<UsagePeriod> found = new ArrayList<>();
        for (long start = granularity.periodStart(fromMillis); start < toMillis; start += granularity.millis()) {
            if (start < fromMillis) {
                continue;                                    // the period holding fromMillis started before it
            }
            List<Map<String, AttributeValue>> items = query(QueryRequest.builder().tableName(table)
                    .keyConditionExpression("PK = :p")
                    .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(resourcePk(resource, granularity,
                            label(granularity, start)))))
                    .build());
            for (Map<String, AttributeValue> item : items) {
                if (live(item)) {
                    found.add(decode(item));
                }
            }
        }
        return found;
    }

    private boolean live(Map<String, AttributeValue> item) {
        AttributeValue ttl = item.get(ItemCodec.TTL);
        return ttl == null || Long.parseLong(ttl.n()) * 1000 > clock.millis();
    }

    private List<Map<String, AttributeValue>> query(QueryRequest request) {
        try {
            List<Map<String, AttributeValue>> items = new ArrayList<>();
            Map<String, AttributeValue> start = null;
            do {
                QueryRequest page = start == null ? request : request.toBuilder().exclusiveStartKey(start).build();
                QueryResponse response = client.query(page);
                items.addAll(response.items());
                start = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
                        ? response.lastEvaluatedKey() : null;
            } while (start != null);
            return items;
        } catch (SdkException e) {
            throw DynamoDbStore.unavailable(table, "read usage history", e);
        }
    }

    private UsagePeriod decode(Map<String, AttributeValue> item) {
        try {
            Map<String, long[]> limits = new HashMap<>();
            item.forEach((name, value) -> {
                if (name.length() > 3 && ORDER.contains(name.substring(0, 3))) {
                    long[] counts = limits.computeIfAbsent(name.substring(3), n -> new long[ORDER.size()]);
                    counts[ORDER.indexOf(name.substring(0, 3))] =
                            ItemCodec.longOf(value);
                }
            });
            Map<String, UsageCounts> counts = new HashMap<>();
            limits.forEach((name, c) -> counts.put(name, new UsageCounts(c[0], c[1], c[2], c[3], c[4], c[5])));
            return new UsagePeriod(new BucketKey(item.get("ent").s(), item.get("res").s()),
                    "H".equals(item.get("g").s()) ? UsageGranularity.HOUR : UsageGranularity.DAY,
                    ItemCodec.longOf(item.get("ps")), counts);
        } catch (RuntimeException e) {
            throw new CorruptStateException("DynamoDB table " + table + " holds a usage item it cannot read ("
                    + e.getMessage() + ")", e);
        }
    }

    private String resourcePk(String resource, UsageGranularity granularity, String label) {
        return keys.namespace() + "#U#" + resource + "#" + code(granularity) + "#" + label;
    }

    private String entityIndexPk(String entityId) {
        return keys.namespace() + "#UE#" + entityId;
    }

    private static String code(UsageGranularity granularity) {
        return granularity == UsageGranularity.HOUR ? "H" : "D";
    }

    private static String label(UsageGranularity granularity, long millis) {
        return (granularity == UsageGranularity.HOUR ? HOUR : DAY).format(Instant.ofEpochMilli(millis));
    }
}
