package dev.zaelimiter.store.memory;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.AuditStore;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.UsageStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link LimiterStore} in the heap of one process. Each bucket has its own monitor, so calls on different buckets
 * never wait for each other; a call that spans two buckets (a cascade) locks them in key order. A bucket whose life
 * ended ({@link BucketLife}: full at or after its horizon) is new, as it is in the DynamoDB store: it is forgotten
 * when next touched, and such buckets are evicted once in a while without changing any answer. A full bucket is
 * kept until its horizon (at least an hour), so memory holds the buckets written within their horizon.
 */
public final class InMemoryStore implements LimiterStore, InPlaceBuckets {

    /** The most periods (a bucket's hour, or its day) of each kind the usage history keeps by default. */
    public static final int DEFAULT_MAX_USAGE_PERIODS = 100_000;
    /** The most events the audit log keeps by default. */
    public static final int DEFAULT_MAX_AUDIT_EVENTS = 10_000;

    private final CellTable cells = new CellTable();
    private final MemoryConfig config = new MemoryConfig();
    private final Sweeper sweeper = new Sweeper(cells, config);
    private final MemoryUsage usage;
    private final MemoryAudit audit;

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
            throw new ValidationException("maxUsagePeriods", maxUsagePeriods, "at least one period");
        }
        if (maxAuditEvents < 1) {
            throw new ValidationException("maxAuditEvents", maxAuditEvents, "at least one event");
        }
        this.usage = new MemoryUsage(maxUsagePeriods);
        this.audit = new MemoryAudit(maxAuditEvents);
    }

    @Override
    public UsageStore usage() {
        return usage;
    }

    @Override
    public AuditStore audit() {
        return audit;
    }

    // ---- configuration and entities

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        return config.loadConfig(entityId, resource);
    }

    @Override
    public LevelConfig getLevel(ConfigScope scope) {
        return config.getLevel(scope);
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
        config.updateEntity(entity);
    }

    @Override
    public boolean deleteEntity(String entityId) {
        boolean existed = config.deleteEntity(entityId);
        cells.deleteOf(entityId);
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
        return tryAcquire(debits, now, 0);
    }

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
        AcquireResult result = debits.size() == 1
                ? cells.withBucket(debits.get(0).key(), cell -> tryAcquire(cell, debits.get(0), now, horizonMillis))
                : cells.withBuckets(debits, locked -> tryAcquire(locked, debits, now, horizonMillis));
        sweeper.afterWrite(now);
        return result;
    }

    /** {@link #tryAcquire(List, long, long)} of one bucket: its monitor alone, and one debited state when not overridden. */
    private static AcquireResult tryAcquire(Cell cell, BucketDebit debit, long now, long horizonMillis) {
        List<Limit> limits = debit.limits();
        BucketState state = CellTable.refilled(cell, debit, now);
        long horizon = debit.bookingHorizon(now, horizonMillis);
        boolean admitted = debit.countOnly() || state.admitsWithin(limits, debit.amountsMilli(), horizon);
        long wait = 0;
        if (admitted) {
            BucketState debited = state.debited(limits, debit.amountsMilli(), debit.countOnly(), debit.leaseId());
            cell.store(debit.overridden() ? state.debitedKept(limits, debit.kept(), debit.amountsMilli(),
                    debit.countOnly(), debit.leaseId()) : debited, debit.kept());
            state = debited;
            wait = horizon > 0 ? debited.bookedWaitMillis(limits, debit.amountsMilli()) : 0;
        }
        return new AcquireResult(admitted, List.of(new BucketSnapshot(debit.key(), state)), wait);
    }

    /** {@link #tryAcquire(List, long, long)} of several buckets, all of them locked. */
    private static AcquireResult tryAcquire(Cell[] locked, List<BucketDebit> debits, long now, long horizonMillis) {
        BucketState[] refilled = CellTable.refilled(locked, debits, now);
        boolean admitted = true;
        for (int i = 0; i < debits.size() && admitted; i++) {
            BucketDebit debit = debits.get(i);
            admitted = debit.countOnly()
                    || refilled[i].admitsWithin(debit.limits(), debit.amountsMilli(),
                            debit.bookingHorizon(now, horizonMillis));
        }
        List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
        long wait = 0;
        for (int i = 0; i < debits.size(); i++) {
            BucketDebit debit = debits.get(i);
            BucketState state = refilled[i];
            if (admitted) {
                locked[i].store(state.debitedKept(debit.limits(), debit.kept(), debit.amountsMilli(),
                        debit.countOnly(), debit.leaseId()), debit.kept());
                state = state.debited(debit.limits(), debit.amountsMilli(), debit.countOnly(), debit.leaseId());
                if (debit.bookingHorizon(now, horizonMillis) > 0) {
                    wait = Math.max(wait, state.bookedWaitMillis(debit.limits(), debit.amountsMilli()));
                }
            }
            snapshots.add(new BucketSnapshot(debit.key(), state));
        }
        return new AcquireResult(admitted, snapshots, wait);
    }

    @Override
    public InPlaceBuckets inPlaceBuckets() {
        return this;
    }

    /**
     * Decides under the bucket's monitor, on the cell as it is kept ({@link InPlaceTake}); the result is what
     * {@link #tryAcquire(List, long)} decides and writes. A decision that counts usage makes the bucket a counting
     * one first.
     */
    @Override
    public <C> boolean takeOne(BucketKey key, Take take, long now, Outcome<C> outcome, C call) {
        boolean countUsage = take.countUsage();
        if (countUsage) {
            cells.countUsage();
        }
        boolean admitted;
        while (true) {
            Cell cell = cells.cell(key);
            synchronized (cell) {
                if (cell.retired) {
                    continue;
                }
                if (countUsage && !(cell instanceof CountingCell)) {
                    cells.makeCounting(key, cell);
                    continue;
                }
                admitted = InPlaceTake.take(cell, take, now, outcome, call);
                if (countUsage) {
                    cells.count((CountingCell) cell, key, now, take.limits().get(0), admitted, take.amountMilli(),
                            take.countOnly());
                }
                break;
            }
        }
        sweeper.afterWrite(now);
        return admitted;
    }

    @Override
    public long sharedConfigVersion(String entityId) {
        return config.sharedConfigVersion(entityId);
    }

    @Override
    public void drainUsage(UsageSink sink) {
        cells.drainUsage(sink);
    }

    @Override
    public void apply(List<BucketDebit> given, long now) {
        List<BucketDebit> debits = shared(given);
        if (debits.size() == 1) {
            BucketDebit debit = debits.get(0);
            cells.withBucket(debit.key(), cell -> {
                cell.store(CellTable.refilled(cell, debit, now).adjusted(debit.limits(), debit.amountsMilli(),
                        debit.countOnly(), debit.leaseId()), debit.limits());
                return null;
            });
        } else {
            cells.withBuckets(debits, locked -> {
                BucketState[] refilled = CellTable.refilled(locked, debits, now);
                for (int i = 0; i < debits.size(); i++) {
                    BucketDebit debit = debits.get(i);
                    locked[i].store(refilled[i].adjusted(debit.limits(), debit.amountsMilli(), debit.countOnly(),
                            debit.leaseId()), debit.limits());
                }
                return null;
            });
        }
        sweeper.afterWrite(now);
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
        for (BucketDebit debit : debits) {
            BucketState state = cells.stored(debit.key(), debit.kept(), now);
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
        return cells.withBuckets(debits, locked -> {
            BucketState[] refilled = CellTable.refilled(locked, debits, now);
            boolean held = true;
            for (int i = 0; i < debits.size(); i++) {
                BucketDebit debit = debits.get(i);
                held &= refilled[i].holds(debit.limits(), debit.amountsMilli(), debit.leaseId());
                locked[i].store(refilled[i].renewed(debit.limits(), debit.leaseId()), debit.limits());
            }
            return held;
        });
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

    @Override
    public void deleteBucket(BucketKey key) {
        cells.delete(key);
    }

    /** The number of buckets held now, for tests and metrics. */
    public int bucketCount() {
        return cells.size();
    }

    /** Whether the store holds the bucket {@code key} now (it was written and not evicted or deleted), for tests. */
    public boolean holds(BucketKey key) {
        return cells.holds(key);
    }

    /**
     * Removes every bucket whose life ended by {@code now} ({@link BucketLife}: full at or after its horizon, under
     * the limits it was written under and under those its configuration gives it now): such a bucket reads as a new
     * one, consumption counters included, so removing it changes no answer; one that owes is kept.
     *
     * @return how many buckets were removed
     */
    public int evictIdle(long now) {
        return sweeper.evictIdle(now, false, 0);
    }

    /**
     * What the store does on its own every so many writes: {@link #evictIdle} of the buckets not written since the
     * previous sweep. A bucket in use stays even when it is full between calls (many buckets of a generous limit
     * are), so that it is not removed and made again over and over; it goes once it is left alone for a whole
     * sweep interval.
     *
     * @return how many buckets were removed
     */
    int sweep(long now) {
        return sweeper.sweep(now);
    }
}
