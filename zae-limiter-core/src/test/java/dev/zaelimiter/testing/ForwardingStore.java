package dev.zaelimiter.testing;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
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
import dev.zaelimiter.store.UsageWrite;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that passes every call to another, except that it can deliver usage writes twice, as a network that
 * repeats a request (or a client that retries one whose answer was lost) would.
 */
public final class ForwardingStore implements LimiterStore {

    private final LimiterStore delegate;
    private final AtomicInteger duplicates = new AtomicInteger();
    private final AtomicInteger duplicated = new AtomicInteger();
    private final UsageStore usage;
    private final java.util.Map<String, java.util.function.Supplier<RuntimeException>> usageFailures =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger usageFailuresSeen = new AtomicInteger();
    private final boolean auditable;

    public ForwardingStore(LimiterStore delegate) {
        this(delegate, true);
    }

    /** {@code delegate} with its usage history and audit log hidden, as a store that keeps neither. */
    public static ForwardingStore withoutHistory(LimiterStore delegate) {
        return new ForwardingStore(delegate, false);
    }

    private ForwardingStore(LimiterStore delegate, boolean keepHistory) {
        this.delegate = delegate;
        this.auditable = keepHistory;
        UsageStore kept = keepHistory ? delegate.usage() : null;
        UsageStore history = kept;
        this.usage = history == null ? null : new UsageStore() {
            @Override
            public boolean add(UsageWrite write) {
                java.util.function.Supplier<RuntimeException> failure = usageFailures.get(write.period().key()
                        .entityId());
                if (failure != null) {
                    usageFailuresSeen.incrementAndGet();
                    throw failure.get();
                }
                boolean added = history.add(write);
                if (duplicates.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    if (history.add(write)) {
                        throw new AssertionError("a duplicated usage write was counted twice: " + write);
                    }
                    duplicated.incrementAndGet();
                }
                return added;
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> entityUsage(String entityId, String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                return history.entityUsage(entityId, resource, granularity, fromMillis, toMillis);
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> resourceUsage(String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                return history.resourceUsage(resource, granularity, fromMillis, toMillis);
            }
        };
    }

    /** Fails every usage write of {@code entityId} with what {@code failure} makes, until told otherwise. */
    public void failUsageOf(String entityId, java.util.function.Supplier<RuntimeException> failure) {
        usageFailures.put(entityId, failure);
    }

    /** Lets the usage writes of {@code entityId} through again. */
    public void healUsageOf(String entityId) {
        usageFailures.remove(entityId);
    }

    /** How many usage writes {@link #failUsageOf} failed. */
    public int failedUsageWrites() {
        return usageFailuresSeen.get();
    }

    /** Delivers each of the next {@code writes} usage writes twice. */
    public void duplicateUsageWrites(int writes) {
        duplicates.set(writes);
    }

    /** How many usage writes were delivered a second time (and, as required, not counted again). */
    public int duplicatedUsageWrites() {
        return duplicated.get();
    }

    @Override
    public UsageStore usage() {
        return usage;
    }

    @Override
    public AuditStore audit() {
        return auditable ? delegate.audit() : null;
    }

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        return delegate.loadConfig(entityId, resource);
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        return delegate.getLevel(scope);
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        delegate.putLimits(scope, limits);
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        delegate.putDisabled(scope, mode);
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        delegate.putCascade(scope, cascade);
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        delegate.putPause(scope, until);
    }

    @Override
    public void createEntity(Entity entity) {
        delegate.createEntity(entity);
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        return delegate.getEntity(entityId);
    }

    @Override
    public void updateEntity(Entity entity) {
        delegate.updateEntity(entity);
    }

    @Override
    public boolean deleteEntity(String entityId) {
        return delegate.deleteEntity(entityId);
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        return delegate.entityScopes(entityId);
    }

    @Override
    public List<Entity> children(String parentId) {
        return delegate.children(parentId);
    }

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        return delegate.tryAcquire(debits, now);
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        delegate.apply(debits, now);
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        return delegate.renew(debits, now);
    }

    @Override
    public void deleteBucket(BucketKey key) {
        delegate.deleteBucket(key);
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        return delegate.peek(debits, now);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
