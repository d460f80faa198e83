package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * A {@link LimiterStore} on one DynamoDB table, shared by every process that uses the same table and namespace.
 *
 * <ul>
 *   <li>All limits of one entity on one resource live in one item, so an admitted call in steady state is exactly
 *       one conditional {@code UpdateItem} that debits every limit with {@code ADD}, guarded by each limit's floor
 *       and by the item's configuration stamp and deadline: 1 write unit, no reads.</li>
 *   <li>When the guard fails (the stored balance, last refilled earlier, looks short; the configuration changed;
 *       the deadline passed), the slow path reads the item, refills it here and writes it back conditioned on its
 *       version, or rejects without writing.</li>
 *   <li>Configuration is cached per process for {@code stampTtl} and read in one {@code BatchGetItem} on a miss.</li>
 *   <li>A limit with {@linkplain Limit#withLocalReservations() local reservations} is served from per-process
 *       batches taken in one write each, with exact totals (LocalReservations, Holds; docs/hot-buckets.md).</li>
 *   <li>A cascade writes the child and the parent in parallel and refunds one when the other is refused
 *       ({@link CascadeWrite#COMPENSATING}), or uses one transaction ({@link CascadeWrite#TRANSACTIONAL}).</li>
 * </ul>
 *
 * <pre>{@code
 * DynamoDbStore store = DynamoDbStore.builder().client(dynamoDbClient).table("rate-limits").build();
 * store.createTableIfMissing();
 * RateLimiter limiter = RateLimiter.builder().store(store).build();
 * }</pre>
 *
 * <p>Longer than most files on purpose: it is the store SPI over one table (table management, configuration,
 * entities, buckets) with its documented builder; bucket writes live in BucketWrites, CascadeWrites, BucketItems and
 * KnownBuckets.
 */
public final class DynamoDbStore implements LimiterStore {

    private static final Logger log = LoggerFactory.getLogger(DynamoDbStore.class);

    /** The deadline of every request when {@link Builder#requestTimeout} is not set. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMillis(500);

    /** The shortest allowed {@code stampTtl}. */
    public static final Duration MIN_STAMP_TTL = Duration.ofSeconds(10);

    private final DeadlineDynamoDbClient client;
    private final String table;
    private final Keys keys;
    private final Clock clock;
    private final Duration stampTtl;
    private final CascadeWrite cascadeWrite;
    private final ConfigCache cache;
    private final BucketWrites buckets;
    private final CascadeWrites cascades;
    private final ExecutorService executor;
    private final Duration tableWait;
    private final UsageItems usage;
    private final AuditItems audit;
    private final LocalReservations reservations;

    private DynamoDbStore(Builder builder) {
        this.client = new DeadlineDynamoDbClient(Objects.requireNonNull(builder.client, "client"),
                builder.requestTimeout, builder.warmUpTimeout);
        this.table = tableName(builder.table);
        this.keys = new Keys(builder.namespace);
        this.clock = builder.clock;
        if (builder.stampTtl.compareTo(MIN_STAMP_TTL) < 0) {
            throw new ValidationException("stampTtl", builder.stampTtl, "must be at least " + MIN_STAMP_TTL);
        }
        this.stampTtl = builder.stampTtl;
        this.cascadeWrite = builder.cascadeWrite;
        this.tableWait = builder.tableWait;
        this.cache = new ConfigCache(clock, stampTtl.toMillis(), this::batchGet);
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "zae-limiter-dynamodb");
            thread.setDaemon(true);
            return thread;
        });
        BucketItems items = new BucketItems(table, keys, stampTtl.toMillis());
        KnownBuckets known = new KnownBuckets();
        this.buckets = new BucketWrites(client, items, known, client.timeout());
        this.cascades = new CascadeWrites(client, items, known, buckets, executor);
        this.usage = new UsageItems(client, table, keys, clock, builder.usageHourRetention, builder.usageDayRetention);
        this.audit = new AuditItems(client, table, keys, clock, builder.auditRetention);
        this.reservations = new LocalReservations(buckets, clock, executor);
    }

    public static Builder builder() {
        return new Builder();
    }

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z0-9_.-]{3,255}");
    private static final Pattern TABLE_ARN =
            Pattern.compile("arn:[a-z0-9-]+:dynamodb:[a-z0-9-]+:[0-9]{12}:table/(.*)");

    /**
     * A table name as DynamoDB accepts it: 3 to 255 letters, digits and {@code _ . -}; or the ARN of such a table
     * (for a table of another account).
     */
    private static String tableName(String table) {
        Objects.requireNonNull(table, "table");
        Matcher arn = TABLE_ARN.matcher(table);
        String name = arn.matches() ? arn.group(1) : table;
        if (!TABLE_NAME.matcher(name).matches()) {
            throw new ValidationException("table", table, "a DynamoDB table name is 3 to 255 letters, digits and"
                    + " _ . - (or the ARN of such a table)");
        }
        return table;
    }

    public String table() {
        return table;
    }

    public String namespace() {
        return keys.namespace();
    }

    public CascadeWrite cascadeWrite() {
        return cascadeWrite;
    }

    /** The deadline of every request this store makes. */
    public Duration requestTimeout() {
        return client.timeout();
    }

    /**
     * How many requests of this store ran out of their {@linkplain Builder#requestTimeout deadline}. Each surfaced as
     * {@link StoreUnavailableException}; a write among them may still have landed.
     */
    public long timeouts() {
        return client.timeouts();
    }

    // ---- table

    /**
     * Whether the table exists, asked with one read of an item the store uses anyway (so it needs no permission
     * beyond the store's own). A process that starts without creating the table should ask, and refuse to start when
     * the answer is no: every call would otherwise fail ({@code BLOCK}) or be admitted unrecorded ({@code ALLOW})
     * until someone noticed.
     *
     * @throws StoreUnavailableException when DynamoDB cannot be asked
     */
    public boolean tableExists() {
        try {
            client.getItem(b -> b.tableName(table).key(keys.config(ConfigScope.system()))
                    .projectionExpression(Keys.PK));
            return true;
        } catch (ResourceNotFoundException missing) {
            return false;
        } catch (SdkException e) {
            throw unavailable("check table " + table, e);
        }
    }

    /**
     * Creates the table (on-demand billing, string {@code PK}/{@code SK}, index {@code GSI1} for children) when it
     * does not exist, waits until it is active (polling every quarter second, for at most two minutes, then raising
     * {@link StoreUnavailableException}; also when another process is creating it), and turns on TTL on attribute
     * {@code ttl}. A server without the TTL API gets a warning in the log; buckets then simply stay until deleted.
     *
     * @return whether the table was created
     * @throws StoreUnavailableException when DynamoDB cannot be asked, or the table cannot be created or made active
     */
    public boolean createTableIfMissing() {
        boolean created;
        try {
            if (!TableWait.usable(client.describeTable(b -> b.tableName(table)).table().tableStatus())) {
                TableWait.untilActive(client, table, tableWait);         // another process is creating it
            }
            created = false;
        } catch (ResourceNotFoundException missing) {
            try {
                created = createAndWait();
            } catch (SdkException e) {
                // thrown inside this catch, so the catch below would not see it
                throw unavailable("create table " + table, e);
            }
        } catch (SdkException e) {
            throw unavailable("describe table " + table, e);
        }
        try {
            client.updateTimeToLive(b -> b.tableName(table)
                    .timeToLiveSpecification(s -> s.attributeName(ItemCodec.TTL).enabled(true)));
        } catch (SdkException e) {
            log.warn("could not enable TTL on table {} (attribute '{}'): {}; idle default-derived buckets will not"
                    + " expire", table, ItemCodec.TTL, e.getMessage());
        }
        return created;
    }

    /** Creates the table (or finds another process creating it) and waits until it is active. */
    private boolean createAndWait() {
        boolean created;
        try {
            client.createTable(b -> b.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            attribute(Keys.PK), attribute(Keys.SK), attribute(Keys.GSI1PK), attribute(Keys.GSI1SK))
                    .keySchema(key(Keys.PK, KeyType.HASH), key(Keys.SK, KeyType.RANGE))
                    .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                            .indexName(Keys.GSI1)
                            .keySchema(key(Keys.GSI1PK, KeyType.HASH), key(Keys.GSI1SK, KeyType.RANGE))
                            .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                            .build()));
            created = true;
        } catch (ResourceInUseException raced) {
            created = false;
        }
        TableWait.untilActive(client, table, tableWait);
        log.info("created DynamoDB table {}", table);
        return created;
    }

    private static AttributeDefinition attribute(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    // ---- configuration

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        List<Map<String, AttributeValue>> items = call("read configuration", () -> cache.get(List.of(
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
            decode("the entity record of " + entityId, () -> ItemCodec.entity(items.get(0)));
            decode("the configuration level " + ConfigScope.entity(entityId, resource),
                    () -> ItemCodec.level(items.get(1)));
            decode("the configuration level " + ConfigScope.entity(entityId, DEFAULT_RESOURCE),
                    () -> ItemCodec.level(items.get(2)));
            decode("the configuration level " + ConfigScope.resource(resource), () -> ItemCodec.level(items.get(3)));
            decode("the configuration level " + ConfigScope.system(), () -> ItemCodec.level(items.get(4)));
            throw e;
        }
    }

    private Map<Map<String, AttributeValue>, Map<String, AttributeValue>> batchGet(
            List<Map<String, AttributeValue>> wanted) {
        List<Map<String, AttributeValue>> found = new ArrayList<>();
        Map<String, KeysAndAttributes> request = Map.of(table,
                KeysAndAttributes.builder().keys(wanted).consistentRead(true).build());
        while (!request.isEmpty()) {
            Map<String, KeysAndAttributes> next = request;
            BatchGetItemResponse response = client.batchGetItem(b -> b.requestItems(next));
            found.addAll(response.responses().getOrDefault(table, List.of()));
            request = response.hasUnprocessedKeys() ? response.unprocessedKeys() : Map.of();
        }
        return ConfigCache.byKey(found);
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        Map<String, AttributeValue> item = getItem(keys.config(scope));
        return decode("the configuration level " + scope, () -> ItemCodec.level(item));
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        updateLevel(scope, ItemCodec.LIMITS, limits == null ? null : ItemCodec.limits(limits));
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        updateLevel(scope, ItemCodec.DISABLED, mode == null ? null : AttributeValue.fromS(mode.name()));
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        updateLevel(scope, ItemCodec.CASCADE, cascade == null ? null : AttributeValue.fromBool(cascade));
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        updateLevel(scope, ItemCodec.PAUSED, until == null ? null : ItemCodec.number(until));
    }

    private void updateLevel(ConfigScope scope, String attribute, AttributeValue value) {
        Map<String, AttributeValue> key = keys.config(scope);
        call("write configuration", () -> {
            if (value == null) {
                client.updateItem(b -> b.tableName(table).key(key).updateExpression("REMOVE #a")
                        .expressionAttributeNames(Map.of("#a", attribute)));
            } else {
                client.updateItem(b -> b.tableName(table).key(key).updateExpression("SET #a = :v")
                        .expressionAttributeNames(Map.of("#a", attribute))
                        .expressionAttributeValues(Map.of(":v", value)));
            }
            return null;
        });
        cache.invalidate(key);
    }

    // ---- entities

    @Override
    public void createEntity(Entity entity) {
        try {
            call("create entity", () -> client.putItem(b -> b.tableName(table)
                    .item(ItemCodec.entityItem(keys, entity))
                    .conditionExpression("attribute_not_exists(PK)")));
        } catch (ConditionalCheckFailedException e) {
            throw new EntityExistsException(entity.id());
        }
        cache.invalidate(keys.entity(entity.id()));
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        Map<String, AttributeValue> item = getItem(keys.entity(entityId));
        return Optional.ofNullable(decode("the entity record of " + entityId, () -> ItemCodec.entity(item)));
    }

    @Override
    public void updateEntity(Entity entity) {
        try {
            call("update entity", () -> client.putItem(b -> b.tableName(table)
                    .item(ItemCodec.entityItem(keys, entity))
                    .conditionExpression("attribute_exists(PK)")));
        } catch (ConditionalCheckFailedException e) {
            throw new EntityNotFoundException(entity.id());
        }
        cache.invalidate(keys.entity(entity.id()));
    }

    @Override
    public boolean deleteEntity(String entityId) {
        List<Map<String, AttributeValue>> items = queryAll(QueryRequest.builder().tableName(table)
                .keyConditionExpression("PK = :pk")
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(keys.entityPk(entityId))))
                .projectionExpression("PK, SK")
                .consistentRead(true)
                .build());
        boolean existed = items.stream().anyMatch(item -> Keys.META.equals(item.get(Keys.SK).s()));
        for (int i = 0; i < items.size(); i += 25) {
            List<WriteRequest> deletes = items.subList(i, Math.min(items.size(), i + 25)).stream()
                    .map(item -> WriteRequest.builder().deleteRequest(DeleteRequest.builder()
                            .key(Keys.key(item.get(Keys.PK).s(), item.get(Keys.SK).s())).build()).build())
                    .toList();
            Map<String, List<WriteRequest>> request = Map.of(table, deletes);
            call("delete entity", () -> {
                Map<String, List<WriteRequest>> pending = request;
                while (!pending.isEmpty()) {
                    Map<String, List<WriteRequest>> next = pending;
                    var response = client.batchWriteItem(b -> b.requestItems(next));
                    pending = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
                }
                return null;
            });
        }
        cache.clear();
        return existed;
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        String prefix = Keys.CONFIG + "#";
        List<Map<String, AttributeValue>> items = queryAll(QueryRequest.builder().tableName(table)
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

    @Override
    public List<Entity> children(String parentId) {
        List<Map<String, AttributeValue>> items = queryAll(QueryRequest.builder().tableName(table)
                .indexName(Keys.GSI1)
                .keyConditionExpression("GSI1PK = :p")
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(keys.parentIndexPk(parentId))))
                .build());
        return items.stream().map(item -> decode("a child record of " + parentId, () -> ItemCodec.entity(item)))
                .filter(e -> parentId.equals(e.parentId()))
                .sorted(Comparator.comparing(Entity::id))
                .toList();
    }

    private List<Map<String, AttributeValue>> queryAll(QueryRequest request) {
        return call("query", () -> {
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
        });
    }

    private Map<String, AttributeValue> getItem(Map<String, AttributeValue> key) {
        return call("read item", () -> {
            var response = client.getItem(b -> b.tableName(table).key(key).consistentRead(true));
            return response.hasItem() && !response.item().isEmpty() ? response.item() : null;
        });
    }

    // ---- buckets

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        Limit reserving = debits.size() == 1 ? LocalReservations.reserving(debits.get(0)) : null;
        if (reserving != null) {
            return onBuckets(debits, () -> call("acquire", () -> {
                BucketWrites.Outcome outcome = reservations.acquire(debits.get(0), reserving, now);
                return new AcquireResult(outcome.admitted(),
                        List.of(new BucketSnapshot(debits.get(0).key(), outcome.state())));
            }));
        }
        return onBuckets(debits, () -> call("acquire", () -> debits.size() == 1
                ? buckets.acquire(debits.get(0), now)
                : cascadeWrite == CascadeWrite.TRANSACTIONAL
                        ? cascades.acquireTransactionally(debits, now)
                        : cascades.acquireCompensating(debits, now)));
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        onBuckets(debits, () -> call("adjust", () -> {
            if (debits.size() == 1) {
                buckets.apply(debits.get(0), now);
            } else {
                cascades.applyAll(debits, now);
            }
            return null;
        }));
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        return onBuckets(debits, () -> call("renew slots", () -> buckets.renew(debits, now)));
    }

    @Override
    public void deleteBucket(BucketKey key) {
        buckets.forget(key);
        reservations.forget(key);
        call("delete bucket", () -> client.deleteItem(b -> b.tableName(table).key(keys.bucket(key))));
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        return onBuckets(debits, () -> call("read buckets", () -> {
            List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
            for (BucketDebit debit : debits) {
                snapshots.add(new BucketSnapshot(debit.key(), buckets.read(debit, now)));
            }
            return snapshots;
        }));
    }

    /**
     * The usage history, in the same table under its own keys (see {@code docs/dynamodb.md}): one item per bucket and
     * UTC hour or day, expiring by TTL after the retention the builder set.
     */
    @Override
    public dev.zaelimiter.store.UsageStore usage() {
        return usage;
    }

    /** The audit log, in the same table under its own keys, each event expiring by TTL after its retention. */
    @Override
    public dev.zaelimiter.store.AuditStore audit() {
        return audit;
    }

    /**
     * Gives back the tokens this process holds of limits that {@linkplain Limit#withLocalReservations() reserve}
     * (one write per bucket it holds tokens of), lets the writes in flight on the store's threads finish (for at most
     * {@value LocalReservations#CLOSE_WAIT_MILLIS} ms) and stops them. Afterwards every operation raises
     * {@link StoreUnavailableException}, which the limiter's {@link dev.zaelimiter.Unavailable} policy handles.
     */
    @Override
    public void close() {
        try {
            reservations.close();
        } finally {
            LocalReservations.stop(executor);
            client.shut();
        }
    }

    /** The bucket item as stored, or {@code null}; for tests. */
    Map<String, AttributeValue> bucketItemForTest(String entityId, String resource) {
        return getItem(keys.bucket(new BucketKey(entityId, resource)));
    }

    /** How many pools of reserving limits this store keeps; for tests. */
    int reservationPoolsForTest() {
        return reservations.pools();
    }

    /** Gives back and evicts what the pools of reserving limits hold now, as the background sweep does; for tests. */
    void sweepReservationsForTest() {
        reservations.sweep(true);
    }

    /** Closes this store's reservations alone, as {@link #close()} does before it stops the client; for tests. */
    void closeReservationsForTest() {
        reservations.close();
    }

    /** Lets the configuration cache see the clock's reading now, as any call of this process would; for tests. */
    void observeClockForTest() {
        cache.observe();
    }

    /** Stops this store's reservations without giving anything back, as a process that dies would; for tests. */
    void haltReservationsForTest() {
        reservations.halt();
    }

    /** The id this store's holds are written under; for tests. */
    String reservationProcessForTest() {
        return reservations.process();
    }

    /**
     * Runs a store operation, turning transport and service failures into {@link StoreUnavailableException}.
     * Conditional-check failures are outcomes, not failures, and pass through.
     */
    private <T> T call(String what, Supplier<T> operation) {
        try {
            client.checkOpen();
            return operation.get();
        } catch (ConditionalCheckFailedException e) {
            throw e;
        } catch (SdkException e) {
            throw unavailable(what, e);
        } catch (RejectedExecutionException e) {
            throw new StoreUnavailableException("DynamoDB store could not " + what + ": the store is closed", e);
        }
    }

    /**
     * Runs an operation on the buckets of {@code debits}; a bucket item it cannot read (a value of the wrong type, a
     * number that is not one) becomes a {@link CorruptStateException} that names the buckets and the remedy.
     */
    private <T> T onBuckets(List<BucketDebit> debits, Supplier<T> operation) {
        try {
            return operation.get();
        } catch (CorruptStateException e) {
            List<String> names = debits.stream().map(d -> d.key().entityId() + " on " + d.key().resource()).toList();
            throw new CorruptStateException("DynamoDB table " + table + " holds a bucket item it cannot read ("
                    + (names.size() == 1 ? names.get(0) : "one of " + names) + "): " + e.getMessage()
                    + "; nothing was written over it. Reset the bucket (RateLimiterAdmin.resetBucket or the"
                    + " ratelimits actuator endpoint) to repair it", e);
        }
    }

    /**
     * Decodes an item read from the table. Whatever goes wrong there (a missing attribute, a value of the wrong type,
     * a stored limit that no longer validates) is a {@link CorruptStateException} naming {@code what}, never a raw
     * runtime exception.
     */
    private <T> T decode(String what, Supplier<T> decoding) {
        try {
            return decoding.get();
        } catch (RuntimeException e) {
            throw new CorruptStateException("DynamoDB table " + table + " holds " + what + " in a form it cannot read ("
                    + e.getMessage() + "); nothing was written over it. Write it again through RateLimiterAdmin to"
                    + " repair it", e);
        }
    }

    /**
     * The failure {@code e} of a request to {@code table} as the store reports it: a {@link TableNotFoundException}
     * when DynamoDB answered that the table does not exist, otherwise a {@link StoreUnavailableException}.
     */
    static StoreUnavailableException unavailable(String table, String what, SdkException e) {
        if (e instanceof ResourceNotFoundException) {
            return new TableNotFoundException(table, what, e);
        }
        return new StoreUnavailableException("DynamoDB store could not " + what + ": " + e.getMessage(), e);
    }

    private StoreUnavailableException unavailable(String what, SdkException e) {
        return unavailable(table, what, e);
    }

    /** Configures a {@link DynamoDbStore}. */
    public static final class Builder {

        private DynamoDbClient client;
        private String table = "zae-limiter";
        private String namespace = "default";
        private Clock clock = Clock.systemUTC();
        private Duration stampTtl = Duration.ofSeconds(60);
        private CascadeWrite cascadeWrite = CascadeWrite.COMPENSATING;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration warmUpTimeout = DeadlineDynamoDbClient.WARM_UP_TIMEOUT;
        private Duration tableWait = TableWait.DEFAULT_TIMEOUT;
        private Duration usageHourRetention = UsageItems.DEFAULT_HOUR_RETENTION;
        private Duration usageDayRetention = UsageItems.DEFAULT_DAY_RETENTION;
        private Duration auditRetention = AuditItems.DEFAULT_RETENTION;

        private Builder() {
        }

        /** The client; required. Reuse the application's client. */
        public Builder client(DynamoDbClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * The table name (3 to 255 letters, digits and {@code _ . -}, checked by {@link #build()}), or the ARN of
         * such a table; {@code zae-limiter} when not set.
         */
        public Builder table(String table) {
            this.table = Objects.requireNonNull(table, "table");
            return this;
        }

        /** The key prefix that keeps applications sharing a table apart; {@code default} when not set. */
        public Builder namespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** The clock for cache expiry; the system clock when not set. Use the limiter's clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How long a process trusts configuration it read (its cache, and the stamp it writes on buckets): a change
         * made elsewhere reaches this process within this delay. At least 10 s; 60 s when not set.
         */
        public Builder stampTtl(Duration stampTtl) {
            this.stampTtl = Objects.requireNonNull(stampTtl, "stampTtl");
            return this;
        }

        /** How a cascade writes child and parent; {@link CascadeWrite#COMPENSATING} when not set. */
        public Builder cascadeWrite(CascadeWrite cascadeWrite) {
            this.cascadeWrite = Objects.requireNonNull(cascadeWrite, "cascadeWrite");
            return this;
        }

        /**
         * The deadline of every request the store makes, retries included, set on each request through the SDK's
         * per-request override whatever the client's own configuration; 500 ms when not set. A request past it fails
         * the store call with {@link StoreUnavailableException}, so the limiter's unavailability policy applies
         * within about this long. A write that timed out may still land later. Until the store's first request has
         * been answered, requests get 5 s instead (the first request of a cold SDK client takes long).
         */
        public Builder requestTimeout(Duration requestTimeout) {
            if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new ValidationException("requestTimeout", requestTimeout, "a deadline is more than zero");
            }
            this.requestTimeout = requestTimeout;
            return this;
        }

        /**
         * How long usage history is kept after its period ends (by DynamoDB TTL): hours 90 days and days 730 days
         * when not set.
         *
         * @throws ValidationException when either is under one day, or hours are kept longer than days
         */
        public Builder usageRetention(Duration hours, Duration days) {
            if (hours == null || hours.compareTo(Duration.ofDays(1)) < 0) {
                throw new ValidationException("usageRetention.hours", hours, "keep hours at least one day");
            }
            if (days == null || days.compareTo(hours) < 0) {
                throw new ValidationException("usageRetention.days", days, "keep days at least as long as hours ("
                        + hours + ")");
            }
            this.usageHourRetention = hours;
            this.usageDayRetention = days;
            return this;
        }

        /**
         * How long audit events are kept (by DynamoDB TTL); 730 days when not set.
         *
         * @throws ValidationException when under one day
         */
        public Builder auditRetention(Duration retention) {
            if (retention == null || retention.compareTo(Duration.ofDays(1)) < 0) {
                throw new ValidationException("auditRetention", retention, "keep audit events at least one day");
            }
            this.auditRetention = retention;
            return this;
        }

        /** The deadline of requests made before one was answered; for tests. */
        Builder warmUpTimeout(Duration warmUpTimeout) {
            this.warmUpTimeout = Objects.requireNonNull(warmUpTimeout, "warmUpTimeout");
            return this;
        }

        /** How long {@link DynamoDbStore#createTableIfMissing()} waits for the table to become active; for tests. */
        Builder tableWait(Duration tableWait) {
            this.tableWait = Objects.requireNonNull(tableWait, "tableWait");
            return this;
        }

        /**
         * The store; nothing is sent to DynamoDB yet.
         *
         * @throws ValidationException when the table name, namespace or stamp TTL breaks its rule
         */
        public DynamoDbStore build() {
            return new DynamoDbStore(this);
        }
    }
}
