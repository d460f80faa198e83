package dev.zaelimiter.store.memory;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * A {@link LimiterStore} in the heap of one process. Each bucket has its own monitor, so calls on different buckets
 * never wait for each other; a call that spans two buckets (a cascade) locks them in key order. Buckets that are
 * full are indistinguishable from new ones, so they are evicted once in a while, which bounds memory to the buckets
 * in use.
 */
public final class InMemoryStore implements LimiterStore {

    private static final long MIN_SWEEP_INTERVAL = 1 << 16;

    private final ConcurrentHashMap<BucketKey, Cell> buckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ConfigScope, LevelConfig> config = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Entity> entities = new ConcurrentHashMap<>();
    private final AtomicLong writesSinceSweep = new AtomicLong();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile long sweepInterval = MIN_SWEEP_INTERVAL;
    private final MemoryUsage usage;
    private final MemoryAudit audit;

    /** The most periods (a bucket's hour, or its day) of each kind the usage history keeps by default. */
    public static final int DEFAULT_MAX_USAGE_PERIODS = 100_000;
    /** The most events the audit log keeps by default. */
    public static final int DEFAULT_MAX_AUDIT_EVENTS = 10_000;

    /** A store with the default bounds on usage history and audit log. */
    public InMemoryStore() {
        this(DEFAULT_MAX_USAGE_PERIODS, DEFAULT_MAX_AUDIT_EVENTS);
    }

    /**
     * A store whose usage history keeps at most {@code maxUsagePeriods} hour periods and as many day periods (one
     * period: one bucket's hour or day; the oldest go first), and whose audit log keeps the newest
     * {@code maxAuditEvents} events.
     */
    public InMemoryStore(int maxUsagePeriods, int maxAuditEvents) {
        if (maxUsagePeriods < 1) {
            throw new dev.zaelimiter.ValidationException("maxUsagePeriods", maxUsagePeriods, "at least one period");
        }
        if (maxAuditEvents < 1) {
            throw new dev.zaelimiter.ValidationException("maxAuditEvents", maxAuditEvents, "at least one event");
        }
        this.usage = new MemoryUsage(maxUsagePeriods);
        this.audit = new MemoryAudit(maxAuditEvents);
    }

    @Override
    public dev.zaelimiter.store.UsageStore usage() {
        return usage;
    }

    @Override
    public dev.zaelimiter.store.AuditStore audit() {
        return audit;
    }

    /** One bucket. Guarded by its own monitor; {@code retired} once evicted, so that late arrivals retry. */
    private static final class Cell {
        BucketState state;
        List<Limit> limits;
        boolean retired;
    }

    // ---- configuration

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        return new ConfigSnapshot(entities.get(entityId),
                getLevel(ConfigScope.entity(entityId, resource)),
                getLevel(ConfigScope.entity(entityId, DEFAULT_RESOURCE)),
                getLevel(ConfigScope.resource(resource)),
                getLevel(ConfigScope.system()));
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        return config.getOrDefault(scope, LevelConfig.EMPTY);
    }

    @Override
    public void putLimits(ConfigScope scope, List<Limit> limits) {
        updateLevel(scope, level -> level.withLimits(limits));
    }

    @Override
    public void putDisabled(ConfigScope scope, DisabledMode mode) {
        updateLevel(scope, level -> level.withDisabled(mode));
    }

    @Override
    public void putCascade(ConfigScope scope, Boolean cascade) {
        updateLevel(scope, level -> level.withCascade(cascade));
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        updateLevel(scope, level -> level.withPausedUntil(until));
    }

    private void updateLevel(ConfigScope scope, UnaryOperator<LevelConfig> change) {
        config.compute(scope, (key, old) -> {
            LevelConfig next = change.apply(old == null ? LevelConfig.EMPTY : old);
            return next.isEmpty() ? null : next;
        });
    }

    // ---- entities

    @Override
    public void createEntity(Entity entity) {
        if (entities.putIfAbsent(entity.id(), entity) != null) {
            throw new EntityExistsException(entity.id());
        }
    }

    @Override
    public Optional<Entity> getEntity(String entityId) {
        return Optional.ofNullable(entities.get(entityId));
    }

    @Override
    public void updateEntity(Entity entity) {
        if (entities.replace(entity.id(), entity) == null) {
            throw new EntityNotFoundException(entity.id());
        }
    }

    @Override
    public boolean deleteEntity(String entityId) {
        boolean existed = entities.remove(entityId) != null;
        config.keySet().removeIf(scope -> entityId.equals(scope.entityId()));
        buckets.keySet().removeIf(key -> key.entityId().equals(entityId));
        return existed;
    }

    @Override
    public List<Entity> children(String parentId) {
        return entities.values().stream()
                .filter(e -> parentId.equals(e.parentId()))
                .sorted(Comparator.comparing(Entity::id))
                .toList();
    }

    // ---- buckets

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        AcquireResult result = withBuckets(debits, cells -> {
            BucketState[] refilled = refilled(cells, debits, now);
            boolean admitted = true;
            for (int i = 0; i < debits.size() && admitted; i++) {
                BucketDebit debit = debits.get(i);
                admitted = debit.countOnly() || refilled[i].admits(debit.limits(), debit.amountsMilli());
            }
            List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
            for (int i = 0; i < debits.size(); i++) {
                BucketDebit debit = debits.get(i);
                BucketState state = refilled[i];
                if (admitted) {
                    store(cells[i], state.debitedKept(debit.limits(), debit.kept(), debit.amountsMilli(),
                            debit.countOnly(), debit.leaseId()), debit.kept());
                    state = state.debited(debit.limits(), debit.amountsMilli(), debit.countOnly(), debit.leaseId());
                }
                snapshots.add(new BucketSnapshot(debit.key(), state));
            }
            return new AcquireResult(admitted, snapshots);
        });
        afterWrite(now);
        return result;
    }

    @Override
    public void apply(List<BucketDebit> given, long now) {
        List<BucketDebit> debits = shared(given);
        withBuckets(debits, cells -> {
            BucketState[] refilled = refilled(cells, debits, now);
            for (int i = 0; i < debits.size(); i++) {
                BucketDebit debit = debits.get(i);
                store(cells[i], refilled[i].adjusted(debit.limits(), debit.amountsMilli(), debit.countOnly(),
                        debit.leaseId()), debit.limits());
            }
            return null;
        });
        afterWrite(now);
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
        for (BucketDebit debit : debits) {
            Cell cell = buckets.get(debit.key());
            BucketState state = null;
            if (cell != null) {
                synchronized (cell) {
                    state = cell.retired ? null : cell.state;
                }
            }
            BucketState refilled = state == null
                    ? BucketState.fresh(debit.limits(), now)
                    : state.refilled(debit.limits(), now);
            snapshots.add(new BucketSnapshot(debit.key(), refilled));
        }
        return snapshots;
    }

    @Override
    public boolean renew(List<BucketDebit> given, long now) {
        List<BucketDebit> debits = shared(given);
        return withBuckets(debits, cells -> {
            BucketState[] refilled = refilled(cells, debits, now);
            boolean held = true;
            for (int i = 0; i < debits.size(); i++) {
                BucketDebit debit = debits.get(i);
                held &= refilled[i].holds(debit.limits(), debit.amountsMilli(), debit.leaseId());
                store(cells[i], refilled[i].renewed(debit.limits(), debit.leaseId()), debit.limits());
            }
            return held;
        });
    }

    @Override
    public void deleteBucket(BucketKey key) {
        Cell cell = buckets.get(key);
        if (cell != null) {
            synchronized (cell) {
                cell.retired = true;
                buckets.remove(key, cell);
            }
        }
    }

    /** The number of buckets held now, for tests and metrics. */
    public int bucketCount() {
        return buckets.size();
    }

    /**
     * Removes every bucket that is full at {@code now}: such a bucket is identical to a new one, so removing it
     * changes no decision (only its consumption counters go).
     *
     * @return how many buckets were removed
     */
    public int evictIdle(long now) {
        int evicted = 0;
        for (var entry : buckets.entrySet()) {
            Cell cell = entry.getValue();
            synchronized (cell) {
                if (!cell.retired && (cell.state == null || cell.state.refilled(cell.limits, now).isFull(cell.limits))) {
                    cell.retired = true;
                    buckets.remove(entry.getKey(), cell);
                    evicted++;
                }
            }
        }
        return evicted;
    }

    private void afterWrite(long now) {
        long writes = writesSinceSweep.incrementAndGet();
        if (writes >= sweepInterval && sweeping.compareAndSet(false, true)) {
            try {
                writesSinceSweep.set(0);
                evictIdle(now);
                // a sweep costs one check per bucket: spacing sweeps by the survivors keeps that under one per write
                sweepInterval = Math.max(MIN_SWEEP_INTERVAL, buckets.size());
            } finally {
                sweeping.set(false);
            }
        }
    }

    /** Corrections and renewals apply to the bucket as kept, never capped by a per-call override. */
    private static List<BucketDebit> shared(List<BucketDebit> debits) {
        for (BucketDebit debit : debits) {
            if (debit.overridden()) {
                return debits.stream().map(BucketDebit::shared).toList();
            }
        }
        return debits;
    }

    private static BucketState[] refilled(Cell[] cells, List<BucketDebit> debits, long now) {
        BucketState[] states = new BucketState[cells.length];
        for (int i = 0; i < cells.length; i++) {
            List<Limit> limits = debits.get(i).limits();
            BucketState state = cells[i].state;
            states[i] = state == null ? BucketState.fresh(limits, now) : state.refilled(limits, now);
        }
        return states;
    }

    private static void store(Cell cell, BucketState state, List<Limit> limits) {
        cell.state = state;
        cell.limits = limits;
    }

    private interface Action<T> {
        T run(Cell[] cells);
    }

    /** Runs {@code action} holding the monitors of every bucket of {@code debits}, created if missing. */
    private <T> T withBuckets(List<BucketDebit> debits, Action<T> action) {
        while (true) {
            Cell[] cells = new Cell[debits.size()];
            for (int i = 0; i < cells.length; i++) {
                cells[i] = buckets.computeIfAbsent(debits.get(i).key(), k -> new Cell());
            }
            Integer[] order = new Integer[cells.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            if (order.length > 1) {
                Arrays.sort(order, Comparator.comparing(i -> debits.get(i).key()));
            }
            Holder<T> holder = new Holder<>();
            if (lockInOrder(cells, order, 0, action, holder)) {
                return holder.value;
            }
        }
    }

    private static final class Holder<T> {
        T value;
    }

    private static <T> boolean lockInOrder(Cell[] cells, Integer[] order, int index, Action<T> action,
            Holder<T> holder) {
        if (index == order.length) {
            holder.value = action.run(cells);
            return true;
        }
        Cell cell = cells[order[index]];
        synchronized (cell) {
            if (cell.retired) {
                return false;
            }
            return lockInOrder(cells, order, index + 1, action, holder);
        }
    }
}
