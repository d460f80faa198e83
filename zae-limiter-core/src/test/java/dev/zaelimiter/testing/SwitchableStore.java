package dev.zaelimiter.testing;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;

import java.util.List;
import java.util.Optional;

/**
 * An in-memory store that tests can break: while {@linkplain #down() down} (or {@linkplain #failWith failing} with
 * another exception) every call but {@link #close()} raises, as a DynamoDB store does when the service cannot be
 * reached; {@link #downForAdjustments()} breaks only adjustments and rollbacks.
 */
public final class SwitchableStore implements LimiterStore {

    private final InMemoryStore delegate = new InMemoryStore();
    private volatile RuntimeException failure;
    private volatile RuntimeException adjustmentFailure;

    /** Every call fails with {@link StoreUnavailableException}. */
    public void down() {
        failWith(new StoreUnavailableException("the store is down (test)", null));
    }

    /** Every call fails with {@code failure}. */
    public void failWith(RuntimeException failure) {
        this.failure = failure;
    }

    /** Only {@link #apply} (adjustments and rollbacks) fails, with {@link StoreUnavailableException}. */
    public void downForAdjustments() {
        adjustmentFailure = new StoreUnavailableException("store down for writes (test)", null);
    }

    /** Every call works again. */
    public void up() {
        failure = null;
        adjustmentFailure = null;
    }

    private void check() {
        RuntimeException f = failure;
        if (f != null) {
            throw f;
        }
    }

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        check();
        return delegate.loadConfig(entityId, resource);
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        check();
        return delegate.getLevel(scope);
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        check();
        delegate.putLimits(scope, limits);
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        check();
        delegate.putDisabled(scope, mode);
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        check();
        delegate.putCascade(scope, cascade);
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        check();
        delegate.putPause(scope, until);
    }

    @Override
    public void createEntity(Entity entity) {
        check();
        delegate.createEntity(entity);
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        check();
        return delegate.getEntity(entityId);
    }

    @Override
    public void updateEntity(Entity entity) {
        check();
        delegate.updateEntity(entity);
    }

    @Override
    public boolean deleteEntity(String entityId) {
        check();
        return delegate.deleteEntity(entityId);
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        check();
        return delegate.entityScopes(entityId);
    }

    @Override
    public List<Entity> children(String parentId) {
        check();
        return delegate.children(parentId);
    }

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        check();
        return delegate.tryAcquire(debits, now);
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        check();
        RuntimeException f = adjustmentFailure;
        if (f != null) {
            throw f;
        }
        delegate.apply(debits, now);
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        check();
        return delegate.renew(debits, now);
    }

    @Override
    public void deleteBucket(BucketKey key) {
        check();
        delegate.deleteBucket(key);
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        check();
        return delegate.peek(debits, now);
    }

    @Override
    public void close() {
        delegate.close();
    }

    private volatile boolean loseUsageAnswer;

    /** The next usage write lands in the store, but its caller gets a failure, as if the answer had been lost. */
    public void loseNextUsageAnswer() {
        loseUsageAnswer = true;
    }

    @Override
    public dev.zaelimiter.store.UsageStore usage() {
        dev.zaelimiter.store.UsageStore history = delegate.usage();
        return new dev.zaelimiter.store.UsageStore() {
            @Override
            public boolean add(dev.zaelimiter.store.UsageWrite write) {
                check();
                boolean added = history.add(write);
                if (loseUsageAnswer) {
                    loseUsageAnswer = false;
                    throw new StoreUnavailableException("the answer was lost (test)", null);
                }
                return added;
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> entityUsage(String entityId, String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                check();
                return history.entityUsage(entityId, resource, granularity, fromMillis, toMillis);
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> resourceUsage(String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                check();
                return history.resourceUsage(resource, granularity, fromMillis, toMillis);
            }
        };
    }

    @Override
    public dev.zaelimiter.store.AuditStore audit() {
        return delegate.audit();
    }

    @Override
    public String toString() {
        return "SwitchableStore";
    }
}
