package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Names;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.ForwardingStore;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import org.springframework.core.DecoratingProxy;

import java.util.function.BooleanSupplier;

/**
 * The store as calls see it while the declarations are not yet written ({@link StoreSetup#pending()}): the
 * configuration read for a call has the declared settings laid over what the store holds, as it will stand once the
 * declarations are applied, so calls use the declared limits rather than none. Reads of single levels (what the
 * admin API and the declarations' plan see) and everything else are the store's own.
 */
final class PendingDeclarationsStore extends ForwardingStore implements DecoratingProxy {

    private final LimiterStore delegate;
    private final LimitDeclarations declarations;
    private final BooleanSupplier pending;

    PendingDeclarationsStore(LimiterStore delegate, LimitDeclarations declarations, BooleanSupplier pending) {
        this.delegate = delegate;
        this.declarations = declarations;
        this.pending = pending;
    }

    @Override
    protected LimiterStore delegate() {
        return delegate;
    }

    @Override
    public Class<?> getDecoratedClass() {
        return delegate instanceof DecoratingProxy proxy ? proxy.getDecoratedClass() : delegate.getClass();
    }

    /**
     * The store's in-place decisions, without its configuration version while the declarations are pending: the
     * configuration calls see then is not the store's, and changes without a new version when they are written.
     */
    @Override
    public InPlaceBuckets inPlaceBuckets() {
        InPlaceBuckets local = delegate.inPlaceBuckets();
        return local == null ? null : new InPlaceBuckets() {
            @Override
            public <C> boolean takeOne(BucketKey key, Take take, long now, Outcome<C> outcome, C call) {
                return local.takeOne(key, take, now, outcome, call);
            }

            @Override
            public long sharedConfigVersion(String entityId) {
                return pending.getAsBoolean() ? UNVERSIONED : local.sharedConfigVersion(entityId);
            }

            @Override
            public void drainUsage(UsageSink sink) {
                local.drainUsage(sink);
            }
        };
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
    public String toString() {
        return delegate.toString();
    }
}
