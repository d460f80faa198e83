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
 * default that would hide what the delegate can do. One thing is not forwarded unasked: a decorator that overrides
 * {@link #loadConfig} hands on the delegate's in-place decisions without their
 * {@linkplain InPlaceBuckets#sharedConfigVersion configuration version}, unless it says through
 * {@link #forwardsConfigVersion} that its {@code loadConfig} answers what the delegate's does.
 */
public abstract class ForwardingStore implements LimiterStore {

    private final boolean loadConfigForwarded = declaresLoadConfig(getClass()) == ForwardingStore.class;

    /** For subclasses. */
    protected ForwardingStore() {
    }

    private static Class<?> declaresLoadConfig(Class<?> type) {
        try {
            return type.getMethod("loadConfig", String.class, String.class).getDeclaringClass();
        } catch (NoSuchMethodException e) {
            throw new AssertionError("LimiterStore declares loadConfig", e);
        }
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
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
        return delegate().tryAcquire(debits, now, horizonMillis);
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
     * The delegate's in-place decisions; with the delegate's {@link InPlaceBuckets#sharedConfigVersion} only when
     * {@link #forwardsConfigVersion}, otherwise answering {@link InPlaceBuckets#UNVERSIONED}. A decorator that must
     * see every decision overrides this to wrap them or to answer {@code null}.
     */
    @Override
    public InPlaceBuckets inPlaceBuckets() {
        InPlaceBuckets local = delegate().inPlaceBuckets();
        return local == null || forwardsConfigVersion() ? local : new Unversioned(local);
    }

    /**
     * Whether {@link #inPlaceBuckets} passes on the delegate's configuration version, which lets the limiter skip
     * {@link #loadConfig} while that version is unchanged: by default only when this class does not override
     * {@code loadConfig}. A decorator whose {@code loadConfig} answers exactly what the delegate's does (one that
     * times or counts the calls, say) overrides this to answer {@code true}; one that changes the answer (a kill
     * switch of its own) must not.
     *
     * @return whether the delegate's configuration version is passed on
     */
    protected boolean forwardsConfigVersion() {
        return loadConfigForwarded;
    }

    @Override
    public void close() {
        delegate().close();
    }

    /** In-place decisions that promise no configuration version. */
    private record Unversioned(InPlaceBuckets local) implements InPlaceBuckets {

        @Override
        public <C> boolean takeOne(BucketKey key, Take take, long now, Outcome<C> outcome, C call) {
            return local.takeOne(key, take, now, outcome, call);
        }

        @Override
        public void drainUsage(UsageSink sink) {
            local.drainUsage(sink);
        }
    }
}
