package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.Names;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.AuditStore;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.LocalBuckets;
import dev.zaelimiter.store.UsageStore;
import org.springframework.core.DecoratingProxy;

import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The store as calls see it while the declarations are not yet written ({@link StoreSetup#pending()}): the
 * configuration read for a call has the declared settings laid over what the store holds, as it will stand once the
 * declarations are applied, so calls use the declared limits rather than none. Reads of single levels (what the
 * admin API and the declarations' plan see) and everything else are the store's own.
 */
final class PendingDeclarationsStore implements LimiterStore, DecoratingProxy {

    private final LimiterStore delegate;
    private final LimitDeclarations declarations;
    private final BooleanSupplier pending;

    PendingDeclarationsStore(LimiterStore delegate, LimitDeclarations declarations, BooleanSupplier pending) {
        this.delegate = delegate;
        this.declarations = declarations;
        this.pending = pending;
    }

    @Override
    public Class<?> getDecoratedClass() {
        return delegate instanceof DecoratingProxy proxy ? proxy.getDecoratedClass() : delegate.getClass();
    }

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        ConfigSnapshot stored = delegate.loadConfig(entityId, resource);
        return pending.getAsBoolean() ? declared(stored, entityId, resource) : stored;
    }

    /** {@code stored} with every declared setting of its levels in place of the store's. */
    private ConfigSnapshot declared(ConfigSnapshot stored, String entityId, String resource) {
        LevelConfig system = declarations.system() == null ? stored.system()
                : stored.system().withLimits(declarations.system());
        LevelConfig resourceLevel = stored.resource();
        for (LimitDeclarations.LevelDeclaration level : declarations.resources()) {
            if (level.resource().equals(resource)) {
                resourceLevel = over(resourceLevel, level);
            }
        }
        Entity entity = stored.entity();
        LevelConfig entityResource = stored.entityResource();
        LevelConfig entityDefault = stored.entityDefault();
        for (LimitDeclarations.EntityLevels declared : declarations.entities()) {
            if (!declared.entity().id().equals(entityId)) {
                continue;
            }
            entity = declared.entity();
            if (declared.disabled() != null) {
                entityDefault = entityDefault.withDisabled(declared.disabled());
            }
            for (LimitDeclarations.LevelDeclaration level : declared.resources()) {
                if (level.resource().equals(Names.DEFAULT_RESOURCE)) {
                    entityDefault = over(entityDefault, level);
                }
                if (level.resource().equals(resource)) {
                    entityResource = over(entityResource, level);
                }
            }
        }
        return new ConfigSnapshot(entity, entityResource, entityDefault, resourceLevel, system);
    }

    private static LevelConfig over(LevelConfig stored, LimitDeclarations.LevelDeclaration declared) {
        LevelConfig level = stored;
        if (declared.limits() != null) {
            level = level.withLimits(declared.limits());
        }
        if (declared.cascade() != null) {
            level = level.withCascade(declared.cascade());
        }
        if (declared.disabled() != null) {
            level = level.withDisabled(declared.disabled());
        }
        return level;
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
    public UsageStore usage() {
        return delegate.usage();
    }

    @Override
    public AuditStore audit() {
        return delegate.audit();
    }

    @Override
    public LocalBuckets localBuckets() {
        return delegate.localBuckets();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
