package dev.zaelimiter.autoconfigure.test;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.memory.InMemoryStore;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory store of {@link AutoConfigureZaeLimiterTest}: an {@link InMemoryStore} that remembers which buckets
 * and pauses were written, so that {@link #reset()} can put every bucket back to full and end every pause while the
 * declarations, entities and limits stay.
 */
public final class ZaeLimiterTestStore implements LimiterStore {

    private final InMemoryStore delegate = new InMemoryStore();
    private final Set<BucketKey> buckets = ConcurrentHashMap.newKeySet();
    private final Set<ConfigScope> pauses = ConcurrentHashMap.newKeySet();

    /** Puts every bucket used so far back to full and ends every pause; configuration stays. */
    public void reset() {
        for (BucketKey key : buckets) {
            delegate.deleteBucket(key);
        }
        buckets.clear();
        for (ConfigScope scope : pauses) {
            delegate.putPause(scope, null);
        }
        pauses.clear();
    }

    private void remember(List<BucketDebit> debits) {
        for (BucketDebit debit : debits) {
            buckets.add(debit.key());
        }
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
        if (until != null) {
            pauses.add(scope);
        }
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
        remember(debits);
        return delegate.tryAcquire(debits, now);
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        remember(debits);
        delegate.apply(debits, now);
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        remember(debits);
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

    /** The usage history of the in-memory store underneath. */
    @Override
    public dev.zaelimiter.store.UsageStore usage() {
        return delegate.usage();
    }

    /** The audit log of the in-memory store underneath. */
    @Override
    public dev.zaelimiter.store.AuditStore audit() {
        return delegate.audit();
    }

    /**
     * The in-place decisions of the in-memory store underneath, remembering the buckets they write, so that tests
     * decide calls the way the application does outside tests.
     */
    @Override
    public InPlaceBuckets inPlaceBuckets() {
        return local;
    }

    private final InPlaceBuckets local = new InPlaceBuckets() {
        @Override
        public boolean takeOne(BucketKey key, List<Limit> limits, long amountMilli, boolean countOnly, long now,
                boolean countUsage, Outcome outcome) {
            buckets.add(key);
            return delegate.takeOne(key, limits, amountMilli, countOnly, now, countUsage, outcome);
        }

        @Override
        public void drainUsage(UsageSink sink) {
            delegate.drainUsage(sink);
        }
    };
}
