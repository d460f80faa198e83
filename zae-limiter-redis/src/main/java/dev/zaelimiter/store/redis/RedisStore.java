package dev.zaelimiter.store.redis;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
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
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A {@link LimiterStore} on Redis through Lettuce (a standalone Redis, Redis Sentinel or Redis Cluster): every process
 * that points at the same Redis and prefix shares the same limits. A decision on any number of buckets (a cascade's
 * child and parent included) is one round trip, with nothing read first; see {@code docs/redis.md}.
 */
public final class RedisStore implements LimiterStore {

    /** The deadline of every command when {@link Builder#requestTimeout} is not set. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMillis(500);

    /** The longest allowed {@link Builder#requestTimeout}. */
    public static final Duration MAX_REQUEST_TIMEOUT = Duration.ofHours(1);

    /** The shortest allowed {@code stampTtl}. */
    public static final Duration MIN_STAMP_TTL = Duration.ofSeconds(10);

    /**
     * The longest allowed {@code stampTtl}, so that every instant computed from it stays far inside a {@code long}.
     * A process also trusts what it read no longer than this after a restart that lost data, when the configuration
     * version starts again.
     */
    public static final Duration MAX_STAMP_TTL = Duration.ofDays(3650);

    /** How many request deadlines a decision may spend going round while other processes write its buckets. */
    private static final int RETRY_DEADLINES = 20;

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:{}-]{1,64}");
    private static final String CLUSTER_SCHEME = "redis-cluster://";

    private final RedisCalls redis;
    private final Keys keys;
    private final Configuration config;
    private final Buckets buckets;
    private final RedisUsage usage;
    private final RedisAudit audit;
    private final Duration requestTimeout;

    private RedisStore(Builder builder) {
        if (builder.client == null && builder.uri == null) {
            throw new ValidationException("client", null, "give a RedisClient, a RedisClusterClient or a URI");
        }
        if (!PREFIX.matcher(builder.prefix).matches()) {
            throw new ValidationException("prefix", builder.prefix,
                    "1 to 64 letters, digits and _ . : { } - (no #, which separates the parts of a key)");
        }
        if (builder.stampTtl.compareTo(MIN_STAMP_TTL) < 0 || builder.stampTtl.compareTo(MAX_STAMP_TTL) > 0) {
            throw new ValidationException("stampTtl", builder.stampTtl, "must be at least " + MIN_STAMP_TTL
                    + " and at most " + MAX_STAMP_TTL);
        }
        this.requestTimeout = builder.requestTimeout;
        AbstractRedisClient client = builder.client;
        String where = "the given " + (client instanceof RedisClusterClient ? "RedisClusterClient" : "RedisClient");
        if (client == null) {
            client = builder.uri.startsWith(CLUSTER_SCHEME) ? clusterClient(builder.uri, requestTimeout)
                    : client(builder.uri, requestTimeout);
            where = builder.uri.replaceFirst("//[^@/]*@", "//");
        }
        boolean cluster = client instanceof RedisClusterClient;
        if (cluster && (builder.prefix.contains("{") || builder.prefix.contains("}"))) {
            throw new ValidationException("prefix", builder.prefix, "no { or } on Redis Cluster: the store places"
                    + " the hash tags of its keys itself");
        }
        this.keys = new Keys(builder.prefix, cluster ? this::tree : null);
        this.redis = new RedisCalls(client, builder.client == null, requestTimeout, where);
        this.config = new Configuration(redis, keys, builder.clock, builder.stampTtl.toMillis());
        this.buckets = new Buckets(redis, keys, config::seen, RETRY_DEADLINES * requestTimeout.toNanos(),
                requestTimeout.toNanos());
        this.usage = new RedisUsage(redis, keys, builder.usageHourRetention, builder.usageDayRetention);
        this.audit = new RedisAudit(redis, keys, builder.auditRetention);
    }

    /** The tree {@code entityId}'s buckets belong to on a cluster (their hash tag). */
    private String tree(String entityId) {
        return config.tree(entityId);
    }

    /** A client for {@code redis://}, {@code rediss://} or {@code redis-sentinel://}, rejecting while disconnected. */
    private static RedisClient client(String text, Duration timeout) {
        RedisURI uri = uri("uri", text);
        uri.setTimeout(timeout);                              // bounds the handshake of a connection too
        RedisClient client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        return client;
    }

    /** A cluster client for {@code redis-cluster://host:port,host:port}: each node a seed. */
    private static RedisClusterClient clusterClient(String text, Duration timeout) {
        String hosts = text.substring(CLUSTER_SCHEME.length());
        String credentials = hosts.contains("@") ? hosts.substring(0, hosts.indexOf('@') + 1) : "";
        List<RedisURI> seeds = new java.util.ArrayList<>();
        for (String host : hosts.substring(credentials.length()).split(",")) {
            RedisURI seed = uri("uri", "redis://" + credentials + host);
            seed.setTimeout(timeout);
            seeds.add(seed);
        }
        RedisClusterClient client = RedisClusterClient.create(seeds);
        client.setOptions(ClusterClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        return client;
    }

    private static RedisURI uri(String option, String text) {
        try {
            RedisURI uri = RedisURI.create(text);
            if (uri.getHost() == null && uri.getSentinels().isEmpty() && uri.getSocket() == null) {
                throw new IllegalArgumentException("no host");
            }
            return uri;
        } catch (RuntimeException e) {
            throw new ValidationException(option, text, "not a Redis URI (redis://host:port, rediss://,"
                    + " redis-sentinel://host:port/#master, redis-cluster://host:port,host:port): " + e.getMessage());
        }
    }

    /** A builder; {@link Builder#client}, {@link Builder#clusterClient} or {@link Builder#uri} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The prefix of every key this store writes. */
    public String prefix() {
        return keys.prefix();
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** How many commands of this store ran out of their deadline; each surfaced as a store failure. */
    public long timeouts() {
        return redis.timeouts();
    }

    /** How many commands (script runs and plain commands) this store sent: one round trip each. */
    public long commands() {
        return redis.commands();
    }

    /**
     * Makes every bucket this process knows too old for a refusal without a round trip (for tests that compare
     * several processes with one store: another process may have given tokens back).
     */
    void expireLocalRefusals() {
        buckets.expireLocalRefusals();
    }

    /** Makes the script decide every call it can from the buckets as stored (for tests of its arithmetic). */
    void withoutShortcuts() {
        buckets.withoutShortcuts();
    }

    /** How many runs of {@code bucket.lua} deciding a call were in write mode (for tests). */
    long writeModeRuns() {
        return buckets.writeModeRuns();
    }

    // ---- configuration

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        return config.load(entityId, resource);
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        return config.get(scope);
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        config.putLimits(scope, limits);
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        config.putDisabled(scope, mode);
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        config.putCascade(scope, cascade);
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        config.putPause(scope, until);
    }

    // ---- entities

    @Override
    public void createEntity(Entity entity) {
        config.createEntity(entity);
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        return config.getEntity(entityId);
    }

    @Override
    public void updateEntity(Entity entity) {
        String oldParent = config.updateEntity(entity);
        String newParent = entity.parentId() == null ? "" : entity.parentId();
        if (redis.cluster() && !oldParent.equals(newParent)) {
            moveBuckets(entity.id(), oldParent.isEmpty() ? entity.id() : oldParent,
                    newParent.isEmpty() ? entity.id() : newParent);
        }
    }

    /**
     * Moves the buckets of {@code entityId} from the hash tag of tree {@code from} to that of {@code to} on a cluster
     * (a new parent): each is copied whole ({@code DUMP}, {@code RESTORE} with what is left of its time to live) and
     * the old key deleted. A bucket another process already wrote under the new tag is kept as it is.
     */
    private void moveBuckets(String entityId, String from, String to) {
        String oldTag = "#{" + from + "}";
        for (String old : scan(keys.bucketsOf(entityId) + oldTag)) {
            String moved = old.substring(0, old.length() - oldTag.length()) + "#{" + to + "}";
            redis.call(r -> {
                byte[] dump = r.dump(old);
                long ttl = r.pttl(old);
                if (dump != null && ttl != -2) {
                    try {
                        r.restore(moved, dump, RestoreArgs.Builder.ttl(Math.max(0, ttl)));
                    } catch (RedisCommandExecutionException busy) {
                        if (!String.valueOf(busy.getMessage()).startsWith("BUSYKEY")) {
                            throw busy;
                        }
                    }
                }
                return r.del(old);
            });
        }
    }

    /** Every key matching {@code pattern}, on every node of a cluster ({@code SCAN}: the whole keyspace). */
    private List<String> scan(String pattern) {
        return redis.call(r -> {
            List<String> found = new java.util.ArrayList<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                var page = r.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                found.addAll(page.getKeys());
                cursor = page;
            } while (!cursor.isFinished());
            return found;
        });
    }

    @Override
    public boolean deleteEntity(String entityId) {
        boolean existed = config.deleteEntity(entityId);
        List<String> found = scan(keys.bucketsOf(entityId));
        if (!found.isEmpty()) {
            redis.call(r -> r.del(found.toArray(String[]::new)));
        }
        buckets.forget(entityId);
        return existed;
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        return config.entityScopes(entityId);
    }

    @Override
    public List<Entity> children(String parentId) {
        return config.children(parentId);
    }

    // ---- buckets

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        return buckets.tryAcquire(debits, now);
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        buckets.apply(debits.stream().map(BucketDebit::shared).toList(), now);
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        return buckets.renew(debits.stream().map(BucketDebit::shared).toList(), now);
    }

    @Override
    public void deleteBucket(BucketKey key) {
        buckets.delete(key);
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        return buckets.peek(debits, now);
    }

    // ---- history

    @Override
    public UsageStore usage() {
        return usage;
    }

    @Override
    public AuditStore audit() {
        return audit;
    }

    /** Closes the connection, and the client when the store made it from a URI; later calls fail as unavailable. */
    @Override
    public void close() {
        redis.close();
    }

    /** Builds a {@link RedisStore}; {@link #build()} checks the options and sends nothing to Redis. */
    public static final class Builder {

        private AbstractRedisClient client;
        private String uri;
        private String prefix = "zae";
        private Clock clock = Clock.systemUTC();
        private Duration stampTtl = Duration.ofSeconds(60);
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration usageHourRetention = RedisUsage.DEFAULT_HOUR_RETENTION;
        private Duration usageDayRetention = RedisUsage.DEFAULT_DAY_RETENTION;
        private Duration auditRetention = RedisAudit.DEFAULT_RETENTION;

        private Builder() {
        }

        /**
         * The application's client: the store opens one connection of its own on it and leaves the client open when
         * closed. Its deadline is set on that connection; set the client's
         * {@link ClientOptions.DisconnectedBehavior#REJECT_COMMANDS} so that commands fail at once while Redis is
         * unreachable instead of waiting for the deadline.
         */
        public Builder client(RedisClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * The application's client of a Redis Cluster, used as {@link #client} is. Each entity tree's buckets share
         * a slot; configuration, usage and audit share one slot of their own (see {@code docs/redis.md}).
         */
        public Builder clusterClient(RedisClusterClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * A URI, for which the store makes (and closes) a client of its own: {@code redis://host:port} (or
         * {@code rediss://}), {@code redis-sentinel://host:port,host:port/#master} for Sentinel, or
         * {@code redis-cluster://host:port,host:port} for a Redis Cluster (each node a seed).
         */
        public Builder uri(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /** The start of every key, keeping applications that share a Redis apart; {@code zae} when not set. */
        public Builder prefix(String prefix) {
            this.prefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** The clock for configuration cache expiry; the system clock when not set. Use the limiter's. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How long this process trusts configuration it read while it sees no change: at least 10 s, at most an
         * hour; 60 s when not set. A change is seen sooner, by the version every decision answers with.
         */
        public Builder stampTtl(Duration stampTtl) {
            this.stampTtl = Objects.requireNonNull(stampTtl, "stampTtl");
            return this;
        }

        /**
         * The deadline of every command, and the longest a call waits for this process's other calls on the same
         * bucket; 500 ms when not set, at most an hour. A command past it fails as unavailable.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new ValidationException("requestTimeout", requestTimeout, "a deadline is more than zero");
            }
            if (requestTimeout.compareTo(MAX_REQUEST_TIMEOUT) > 0) {
                throw new ValidationException("requestTimeout", requestTimeout, "at most " + MAX_REQUEST_TIMEOUT
                        + ": a decision may go round for 20 deadlines");
            }
            this.requestTimeout = requestTimeout;
            return this;
        }

        /**
         * How long usage history is kept after each write to a period (a key expiry): hours 90 days and days 730
         * days when not set.
         *
         * @throws ValidationException when either is under one day or over 36,600 days, or hours are kept longer
         *                             than days
         */
        public Builder usageRetention(Duration hours, Duration days) {
            RedisUsage.checkRetention(hours, days);
            this.usageHourRetention = hours;
            this.usageDayRetention = days;
            return this;
        }

        /**
         * How long audit events are kept (a key expiry); 730 days when not set.
         *
         * @throws ValidationException when under one day or over 36,600 days
         */
        public Builder auditRetention(Duration retention) {
            RedisAudit.checkRetention(retention);
            this.auditRetention = retention;
            return this;
        }

        /**
         * The store; nothing is sent to Redis yet.
         *
         * @throws ValidationException when the client, prefix, URI or stamp TTL breaks its rule
         */
        public RedisStore build() {
            return new RedisStore(this);
        }
    }
}
