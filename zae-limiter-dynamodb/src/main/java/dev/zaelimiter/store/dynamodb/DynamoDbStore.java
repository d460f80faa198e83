package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.AuditStore;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.UsageStore;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

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
 * <p>This class is the store SPI over one table and its documented builder; the work is done by package-private
 * parts: TableSetup (the table), ConfigItems and EntityItems (configuration and entities), BucketWrites,
 * CascadeWrites and LocalReservations (buckets), UsageItems and AuditItems, all sending through StoreCalls.
 */
public final class DynamoDbStore implements LimiterStore {

    /** The deadline of every request when {@link Builder#requestTimeout} is not set. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMillis(500);

    /** The shortest allowed {@code stampTtl}. */
    public static final Duration MIN_STAMP_TTL = Duration.ofSeconds(10);

    private final DeadlineDynamoDbClient client;
    private final String table;
    private final Keys keys;
    private final CascadeWrite cascadeWrite;
    private final StoreCalls calls;
    private final TableSetup tableSetup;
    private final ConfigItems config;
    private final EntityItems entities;
    private final BucketWrites buckets;
    private final CascadeWrites cascades;
    private final ExecutorService executor;
    private final UsageItems usage;
    private final AuditItems audit;
    private final LocalReservations reservations;

    private DynamoDbStore(Builder builder) {
        this.client = new DeadlineDynamoDbClient(Objects.requireNonNull(builder.client, "client"),
                builder.requestTimeout, builder.warmUpTimeout);
        this.table = TableSetup.tableName(builder.table);
        this.keys = new Keys(builder.namespace);
        Clock clock = builder.clock;
        if (builder.stampTtl.compareTo(MIN_STAMP_TTL) < 0) {
            throw new ValidationException("stampTtl", builder.stampTtl, "must be at least " + MIN_STAMP_TTL);
        }
        long stampTtl = builder.stampTtl.toMillis();
        this.cascadeWrite = builder.cascadeWrite;
        this.calls = new StoreCalls(client, table);
        this.tableSetup = new TableSetup(calls, keys, builder.tableWait);
        this.config = new ConfigItems(calls, keys, clock, stampTtl);
        this.entities = new EntityItems(calls, keys, config);
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "zae-limiter-dynamodb");
            thread.setDaemon(true);
            return thread;
        });
        BucketItems items = new BucketItems(table, keys, stampTtl);
        KnownBuckets known = new KnownBuckets();
        this.buckets = new BucketWrites(client, items, known, client.timeout());
        this.cascades = new CascadeWrites(client, items, known, buckets, executor);
        this.usage = new UsageItems(client, table, keys, clock, builder.usageHourRetention, builder.usageDayRetention);
        this.audit = new AuditItems(client, table, keys, clock, builder.auditRetention);
        this.reservations = new LocalReservations(buckets, clock, executor);
    }

    /** A builder; {@link Builder#client} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The table name (or ARN) this store uses. */
    public String table() {
        return table;
    }

    /** The key prefix that keeps this store's items apart from other applications' in the table. */
    public String namespace() {
        return keys.namespace();
    }

    /** How a cascade writes child and parent. */
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
        return tableSetup.exists();
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
        return tableSetup.createIfMissing();
    }

    // ---- configuration

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        return config.load(entityId, resource);
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        return config.level(scope);
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        config.put(scope, ItemCodec.LIMITS, limits == null ? null : ItemCodec.limits(limits));
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        config.put(scope, ItemCodec.DISABLED, mode == null ? null : AttributeValue.fromS(mode.name()));
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        config.put(scope, ItemCodec.CASCADE, cascade == null ? null : AttributeValue.fromBool(cascade));
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        config.put(scope, ItemCodec.PAUSED, until == null ? null : ItemCodec.number(until));
    }

    // ---- entities

    @Override
    public void createEntity(Entity entity) {
        entities.create(entity);
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        return entities.get(entityId);
    }

    @Override
    public void updateEntity(Entity entity) {
        entities.update(entity);
    }

    @Override
    public boolean deleteEntity(String entityId) {
        return entities.delete(entityId, this::forget);
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        return entities.scopes(entityId);
    }

    @Override
    public List<Entity> children(String parentId) {
        return entities.children(parentId);
    }

    // ---- buckets

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        Limit reserving = debits.size() == 1 ? LocalReservations.reserving(debits.get(0)) : null;
        if (reserving != null) {
            return onBuckets(debits, () -> calls.call("acquire", () -> {
                BucketWrites.Outcome outcome = reservations.acquire(debits.get(0), reserving, now);
                return new AcquireResult(outcome.admitted(),
                        List.of(new BucketSnapshot(debits.get(0).key(), outcome.state())));
            }));
        }
        return onBuckets(debits, () -> calls.call("acquire", () -> debits.size() == 1
                ? buckets.acquire(debits.get(0), now)
                : cascadeWrite == CascadeWrite.TRANSACTIONAL
                        ? cascades.acquireTransactionally(debits, now)
                        : cascades.acquireCompensating(debits, now)));
    }

    /**
     * Books one bucket's debit ahead ({@link BucketWrites#horizon} says how far); several buckets (a cascade, other
     * targets) and a reserving limit are not booked: they answer as {@link #tryAcquire(List, long)}.
     */
    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
        if (horizonMillis <= 0 || debits.size() != 1 || LocalReservations.reserving(debits.get(0)) != null) {
            return tryAcquire(debits, now);
        }
        return onBuckets(debits, () -> calls.call("acquire", () -> buckets.acquire(debits.get(0), now,
                horizonMillis)));
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        onBuckets(debits, () -> calls.call("adjust", () -> {
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
        return onBuckets(debits, () -> calls.call("renew slots", () -> buckets.renew(debits, now)));
    }

    @Override
    public void deleteBucket(BucketKey key) {
        forget(key);
        calls.call("delete bucket", () -> client.deleteItem(b -> b.tableName(table).key(keys.bucket(key))));
    }

    /** Forgets what this process knows and holds of a bucket about to be deleted. */
    private void forget(BucketKey key) {
        buckets.forget(key);
        reservations.forget(key);
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        return onBuckets(debits, () -> calls.call("read buckets", () -> {
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
    public UsageStore usage() {
        return usage;
    }

    /** The audit log, in the same table under its own keys, each event expiring by TTL after its retention. */
    @Override
    public AuditStore audit() {
        return audit;
    }

    /**
     * Gives back the tokens this process holds of limits that {@linkplain Limit#withLocalReservations() reserve}
     * (one write per bucket it holds tokens of), lets the writes in flight on the store's threads finish (for at most
     * {@value ReservationPool#CLOSE_WAIT_MILLIS} ms) and stops them. Afterwards every operation raises
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
        return calls.getItem(keys.bucket(new BucketKey(entityId, resource)));
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
        config.observe();
    }

    /** Stops this store's reservations without giving anything back, as a process that dies would; for tests. */
    void haltReservationsForTest() {
        reservations.halt();
    }

    /** The id this store's holds are written under; for tests. */
    String reservationProcessForTest() {
        return reservations.process();
    }

    /** How many items the configuration cache holds; for tests. */
    int configCacheSizeForTest() {
        return config.cached();
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
            UsageItems.checkRetention(hours, days);
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
            AuditItems.checkRetention(retention);
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
