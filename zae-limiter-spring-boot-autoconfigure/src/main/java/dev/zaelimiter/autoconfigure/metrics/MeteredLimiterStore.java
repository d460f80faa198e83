package dev.zaelimiter.autoconfigure.metrics;

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
import dev.zaelimiter.store.ForwardingStore;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.core.DecoratingProxy;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * A {@link LimiterStore} that times every call of another in the timer {@value #STORE_LATENCY}, tagged
 * {@code operation} (the store method, such as {@code loadConfig} or {@code tryAcquire}) and {@code outcome}
 * ({@code success}, {@code unavailable} for a {@link StoreUnavailableException}, {@code error} for any other
 * exception). Everything else, results and exceptions included, is the delegate's; its usage history, audit log and
 * {@code close} are forwarded untimed.
 */
public final class MeteredLimiterStore extends ForwardingStore implements DecoratingProxy {

    /** The store timer. */
    public static final String STORE_LATENCY = "zae.limiter.store.latency";

    /** The store methods, as the {@code operation} tag spells them. */
    enum Operation {
        LOAD_CONFIG("loadConfig"), GET_LEVEL("getLevel"), PUT_LIMITS("putLimits"), PUT_DISABLED("putDisabled"),
        PUT_CASCADE("putCascade"), PUT_PAUSE("putPause"), CREATE_ENTITY("createEntity"), GET_ENTITY("getEntity"),
        UPDATE_ENTITY("updateEntity"), DELETE_ENTITY("deleteEntity"), ENTITY_SCOPES("entityScopes"),
        CHILDREN("children"),
        TRY_ACQUIRE("tryAcquire"), APPLY("apply"), RENEW("renew"), DELETE_BUCKET("deleteBucket"), PEEK("peek");

        final String tag;

        Operation(String tag) {
            this.tag = tag;
        }
    }

    private enum Outcome {
        SUCCESS, UNAVAILABLE, ERROR
    }

    private final LimiterStore delegate;
    private final Supplier<MeterRegistry> registry;
    private final AtomicReferenceArray<Timer> timers =
            new AtomicReferenceArray<>(Operation.values().length * Outcome.values().length);

    /**
     * @param delegate the store that does the work
     * @param registry where the timers go; asked on the first call, so that it may be resolved lazily
     */
    public MeteredLimiterStore(LimiterStore delegate, Supplier<MeterRegistry> registry) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** The store that does the work. */
    @Override
    public LimiterStore delegate() {
        return delegate;
    }

    @Override
    public Class<?> getDecoratedClass() {
        return delegate instanceof DecoratingProxy proxy ? proxy.getDecoratedClass() : delegate.getClass();
    }

    private Timer timer(Operation operation, Outcome outcome) {
        int index = operation.ordinal() * Outcome.values().length + outcome.ordinal();
        Timer timer = timers.get(index);
        if (timer == null) {
            timer = Timer.builder(STORE_LATENCY)
                    .description("How long calls to the rate limiter's store take")
                    .tag("operation", operation.tag)
                    .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .register(registry.get());
            timers.set(index, timer);
        }
        return timer;
    }

    private <T> T time(Operation operation, Supplier<T> call) {
        long start = System.nanoTime();
        Outcome outcome = Outcome.ERROR;
        try {
            T result = call.get();
            outcome = Outcome.SUCCESS;
            return result;
        } catch (StoreUnavailableException e) {
            outcome = Outcome.UNAVAILABLE;
            throw e;
        } finally {
            timer(operation, outcome).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    private void run(Operation operation, Runnable call) {
        time(operation, () -> {
            call.run();
            return null;
        });
    }

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        return time(Operation.LOAD_CONFIG, () -> delegate.loadConfig(entityId, resource));
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        return time(Operation.GET_LEVEL, () -> delegate.getLevel(scope));
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        run(Operation.PUT_LIMITS, () -> delegate.putLimits(scope, limits));
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        run(Operation.PUT_DISABLED, () -> delegate.putDisabled(scope, mode));
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        run(Operation.PUT_CASCADE, () -> delegate.putCascade(scope, cascade));
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        run(Operation.PUT_PAUSE, () -> delegate.putPause(scope, until));
    }

    @Override
    public void createEntity(Entity entity) {
        run(Operation.CREATE_ENTITY, () -> delegate.createEntity(entity));
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        return time(Operation.GET_ENTITY, () -> delegate.getEntity(entityId));
    }

    @Override
    public void updateEntity(Entity entity) {
        run(Operation.UPDATE_ENTITY, () -> delegate.updateEntity(entity));
    }

    @Override
    public boolean deleteEntity(String entityId) {
        return time(Operation.DELETE_ENTITY, () -> delegate.deleteEntity(entityId));
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        return time(Operation.ENTITY_SCOPES, () -> delegate.entityScopes(entityId));
    }

    @Override
    public List<Entity> children(String parentId) {
        return time(Operation.CHILDREN, () -> delegate.children(parentId));
    }

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        return time(Operation.TRY_ACQUIRE, () -> delegate.tryAcquire(debits, now));
    }

    /** A booking ({@link dev.zaelimiter.store.LimiterStore#tryAcquire(List, long, long)}), timed as a {@code tryAcquire}. */
    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
        return time(Operation.TRY_ACQUIRE, () -> delegate.tryAcquire(debits, now, horizonMillis));
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        run(Operation.APPLY, () -> delegate.apply(debits, now));
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        return time(Operation.RENEW, () -> delegate.renew(debits, now));
    }

    @Override
    public void deleteBucket(BucketKey key) {
        run(Operation.DELETE_BUCKET, () -> delegate.deleteBucket(key));
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        return time(Operation.PEEK, () -> delegate.peek(debits, now));
    }

    /**
     * The delegate's in-place decisions, each timed as a {@code tryAcquire} (which it stands for), with the
     * delegate's configuration version (this store's {@code loadConfig} answers what the delegate's does), or none
     * when the delegate has none. Timed as {@link #time} does, written out so that a decision does not capture its
     * arguments in a lambda on every call.
     */
    @Override
    public dev.zaelimiter.store.InPlaceBuckets inPlaceBuckets() {
        dev.zaelimiter.store.InPlaceBuckets local = delegate.inPlaceBuckets();
        if (local == null) {
            return null;
        }
        return new dev.zaelimiter.store.InPlaceBuckets() {
            @Override
            public <C> boolean takeOne(dev.zaelimiter.store.BucketKey key, Take take, long now, Outcome<C> outcome,
                    C call) {
                long start = System.nanoTime();
                MeteredLimiterStore.Outcome result = MeteredLimiterStore.Outcome.ERROR;
                try {
                    boolean admitted = local.takeOne(key, take, now, outcome, call);
                    result = MeteredLimiterStore.Outcome.SUCCESS;
                    return admitted;
                } catch (StoreUnavailableException e) {
                    result = MeteredLimiterStore.Outcome.UNAVAILABLE;
                    throw e;
                } finally {
                    timer(Operation.TRY_ACQUIRE, result).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                }
            }

            @Override
            public long sharedConfigVersion(String entityId) {
                return local.sharedConfigVersion(entityId);
            }

            @Override
            public void drainUsage(UsageSink sink) {
                local.drainUsage(sink);
            }
        };
    }

    @Override
    public String toString() {
        return "MeteredLimiterStore[" + delegate + "]";
    }
}
