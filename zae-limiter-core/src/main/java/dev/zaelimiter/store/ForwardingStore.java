package dev.zaelimiter.store;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;

import java.util.List;
import java.util.Optional;

/**
 * A store that passes every call to another, for decorators (timing, tracing, fault injection) that change a few
 * calls and keep the rest: extend it, return the decorated store from {@link #delegate()} and override what differs.
 * Every method of {@link LimiterStore} is forwarded, its default methods included ({@link #putPause}, {@link #renew},
 * {@link #usage}, {@link #audit}, {@link #inPlaceBuckets} and {@link #close}), so a decorator never falls back to a
 * default that would hide what the delegate can do.
 */
public abstract class ForwardingStore implements LimiterStore {

    /** For subclasses. */
    protected ForwardingStore() {
    }

    /**
     * The store every call goes to. Called on each call, so a subclass may switch it; it must not be {@code null}.
     *
     * @return the decorated store
     */
    protected abstract LimiterStore delegate();

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        return delegate().loadConfig(entityId, resource);
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        return delegate().getLevel(scope);
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        delegate().putLimits(scope, limits);
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        delegate().putDisabled(scope, mode);
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        delegate().putCascade(scope, cascade);
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        delegate().putPause(scope, until);
    }

    @Override
    public void createEntity(Entity entity) {
        delegate().createEntity(entity);
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        return delegate().getEntity(entityId);
    }

    @Override
    public void updateEntity(Entity entity) {
        delegate().updateEntity(entity);
    }

    @Override
    public boolean deleteEntity(String entityId) {
        return delegate().deleteEntity(entityId);
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        return delegate().entityScopes(entityId);
    }

    @Override
    public List<Entity> children(String parentId) {
        return delegate().children(parentId);
    }

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        return delegate().tryAcquire(debits, now);
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        delegate().apply(debits, now);
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        return delegate().renew(debits, now);
    }

    @Override
    public void deleteBucket(BucketKey key) {
        delegate().deleteBucket(key);
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        return delegate().peek(debits, now);
    }

    @Override
    public UsageStore usage() {
        return delegate().usage();
    }

    @Override
    public AuditStore audit() {
        return delegate().audit();
    }

    /**
     * The delegate's in-place decisions. A decorator that must see every decision overrides this to wrap them or
     * to answer {@code null}; so does one that changes what {@link #loadConfig} answers, since the limiter does not
     * load the configuration again while {@link InPlaceBuckets#sharedConfigVersion} answers the same.
     */
    @Override
    public InPlaceBuckets inPlaceBuckets() {
        return delegate().inPlaceBuckets();
    }

    @Override
    public void close() {
        delegate().close();
    }
}
