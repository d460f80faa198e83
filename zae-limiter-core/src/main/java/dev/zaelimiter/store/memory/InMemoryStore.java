package dev.zaelimiter.store.memory;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.resolution.ConfigResolver;
import dev.zaelimiter.internal.algorithm.LimitRules;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static dev.zaelimiter.internal.Identifiers.DEFAULT_RESOURCE;

/**
 * A {@link LimiterStore} in the heap of one process. Each bucket has its own monitor, so calls on different buckets
 * never wait for each other; a call that spans two buckets (a cascade) locks them in key order. A bucket whose life
 * ended ({@link BucketLife}: full at or after its horizon) is new, as it is in the DynamoDB store: it is forgotten
 * when next touched, and such buckets are evicted once in a while without changing any answer. A full bucket is
 * kept until its horizon (at least an hour), so memory holds the buckets written within their horizon.
 */
public final class InMemoryStore implements LimiterStore, InPlaceBuckets {

    private static final long MIN_SWEEP_INTERVAL = 1 << 16;

    /** One write in this many adds that many to the write count, so that threads rarely touch the shared counter. */
    private static final int WRITE_SAMPLE = 64;
    /** When the latest {@link #sweep} ran (by the clock of the write that ran it); written by the sweeping thread. */
    private volatile long previousSweepAt = Long.MIN_VALUE;

    private final ConcurrentHashMap<BucketKey, Cell> buckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ConfigScope, LevelConfig> config = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Entity> entities = new ConcurrentHashMap<>();
    /** Entities with a record or a level of their own (possibly emptied since): their snapshots are read in full. */
    private final ConcurrentHashMap<String, Boolean> configured = new ConcurrentHashMap<>();
    /** Per resource, the snapshot of every entity that configures nothing, as of {@link #configVersion}. */
    private final ConcurrentHashMap<String, SharedSnapshot> sharedSnapshots = new ConcurrentHashMap<>();
    /** Bumped after every configuration or entity write, so that a snapshot built before it is not reused. */
    private volatile long configVersion;
    private final AtomicLong writesSinceSweep = new AtomicLong();
    /** Usage counts of buckets that changed hour or limit, or went, since the last {@link #drainUsage}. */
    private final Queue<PendingUsage> pendingUsage = new ConcurrentLinkedQueue<>();
    /** Whether a decision asked to count usage: new buckets are then made to count. */
    private volatile boolean countingUsage;
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

    /**
     * One bucket. Guarded by its own monitor; {@code retired} once evicted, so that late arrivals retry. Holds its
     * state in pieces rather than as a {@link BucketState}, to keep a million buckets small: the instant, and the
     * state of its one limit (the common case) in plain fields, or in {@code states}: the {@link LimitState} of a
     * single limit with slot holders, or the map of several limits' states.
     */
    static class Cell {
        /** {@code states} when the one limit's state is in the plain fields. */
        private static final Object INLINE = new Object();

        private long lastRefillMillis;
        private long balanceMilli;
        private long consumedMilli;
        private long windowStartMillis;
        /** {@code null} for a bucket never written, {@link #INLINE}, a {@link LimitState}, or a map of them. */
        private Object states;
        List<Limit> limits;
        boolean retired;

        /** The stored state, or {@code null} for a bucket never written. */
        BucketState state() {
            Object held = states;
            if (held == null) {
                return null;
            }
            if (held == INLINE || held instanceof LimitState) {
                return new BucketState(lastRefillMillis, Map.of(limits.get(0).name(), single()));
            }
            @SuppressWarnings("unchecked")
            Map<String, LimitState> all = (Map<String, LimitState>) held;
            return new BucketState(lastRefillMillis, all);
        }

        /**
         * The stored state as {@code limits} take it, or {@code null} for a bucket never written: a concurrency
         * limit's free slots are no balance, so a limit that was one when the bucket was written and is of another
         * kind in {@code limits} is full (at the capacity in force once refilled), its consumption kept; as one that
         * becomes a concurrency limit starts with its slots free.
         */
        BucketState state(List<Limit> limits) {
            BucketState stored = state();
            if (stored == null) {
                return null;
            }
            Map<String, LimitState> kept = null;
            for (Limit limit : limits) {
                LimitState old = stored.limits().get(limit.name());
                if (old != null && !limit.isConcurrency() && wasConcurrency(limit.name())) {
                    if (kept == null) {
                        kept = new java.util.HashMap<>(stored.limits());
                    }
                    kept.put(limit.name(), slotsAsFull(old));
                }
            }
            return kept == null ? stored : new BucketState(stored.lastRefillMillis(), kept);
        }

        /** The state of the one limit as {@code limit} takes it ({@link #state(List)}). */
        LimitState single(Limit limit) {
            LimitState old = single();
            return !limit.isConcurrency() && wasConcurrency(limit.name()) ? slotsAsFull(old) : old;
        }

        /** A state above every capacity, which a refill brings down to the capacity in force: full. */
        private static LimitState slotsAsFull(LimitState slots) {
            return new LimitState(Long.MAX_VALUE, slots.consumedMilli());
        }

        private boolean wasConcurrency(String name) {
            for (Limit written : limits) {
                if (written.isConcurrency() && written.name().equals(name)) {
                    return true;
                }
            }
            return false;
        }

        /** Whether the bucket holds the state of one limit (or nothing yet). */
        boolean holdsOne() {
            return states == null || states == INLINE || states instanceof LimitState;
        }

        /** The state of the one limit, for a cell that {@linkplain #holdsOne holds one} and was written. */
        LimitState single() {
            return states == INLINE ? new LimitState(balanceMilli, consumedMilli, windowStartMillis)
                    : (LimitState) states;
        }

        /** The balance of {@code limit} as written, for a bucket that was. */
        long balanceOf(Limit limit) {
            Object held = states;
            if (held == INLINE) {
                return balanceMilli;
            }
            if (held instanceof LimitState single) {
                return single.balanceMilli();
            }
            @SuppressWarnings("unchecked")
            LimitState state = ((Map<String, LimitState>) held).get(limit.name());
            return state == null ? 0 : state.balanceMilli();
        }

        void copyFrom(Cell other) {
            this.lastRefillMillis = other.lastRefillMillis;
            this.balanceMilli = other.balanceMilli;
            this.consumedMilli = other.consumedMilli;
            this.windowStartMillis = other.windowStartMillis;
            this.states = other.states;
            this.limits = other.limits;
        }

        /**
         * Forgets the bucket's state when its life ended by {@code now} under {@code kept}, the limits the bucket is
         * kept under ({@link BucketLife}): it is then new, its consumption counters restarting, as the DynamoDB store
         * reads an item past its horizon. Never judged under a call's override: a bucket that owes lives on.
         */
        void endIfOver(List<Limit> kept, long now) {
            if (states != null && ended(kept, now)) {
                states = null;
            }
        }

        /**
         * Whether the written bucket's life ended by {@code now} under {@code kept}, the limits the bucket is kept
         * under now (never a call's override): its horizon, from its last write and the limits it was written under
         * (what the DynamoDB store writes into the item), has come and it is full under {@code kept}. No horizon is
         * less than {@link BucketLife#MIN_HORIZON_MILLIS}, which spares the busy buckets the computation.
         */
        boolean ended(List<Limit> kept, long now) {
            if (now - lastRefillMillis < BucketLife.MIN_HORIZON_MILLIS) {
                return false;
            }
            long endsAfter = BucketLife.endsAfter(limits, lastRefillMillis);
            return endsAfter <= now && BucketLife.ended(endsAfter, state(kept).refilled(kept, now), kept, now);
        }

        /** Hands any usage counts this bucket holds to {@code pending}, before it goes. */
        void retire(Queue<PendingUsage> pending, BucketKey key) {
            retired = true;
            if (this instanceof CountingCell counting) {
                counting.moveTo(pending, key);
            }
        }

        void store(BucketState state, List<Limit> limits) {
            this.lastRefillMillis = state.lastRefillMillis();
            this.limits = limits;
            Map<String, LimitState> all = state.limits();
            if (all.size() == 1 && limits.size() == 1) {
                LimitState single = all.get(limits.get(0).name());
                if (single != null) {
                    store(single, state.lastRefillMillis(), limits);
                    return;
                }
            }
            this.states = all;
        }

        /** Keeps {@code single} as the state of the one limit of {@code limits}, at {@code at}. */
        void store(LimitState single, long at, List<Limit> limits) {
            this.lastRefillMillis = at;
            this.limits = limits;
            if (single.holders().isEmpty()) {
                this.balanceMilli = single.balanceMilli();
                this.consumedMilli = single.consumedMilli();
                this.windowStartMillis = single.windowStartMillis();
                this.states = INLINE;
            } else {
                this.states = single;
            }
        }
    }

    /**
     * A bucket that also counts the usage of the decisions made in place on it, in the hour of the latest one (see
     * {@link InPlaceBuckets#takeOne}), under the same monitor: counts are moved to {@link #pendingUsage} when the hour,
     * the limit or the kind of amount (consumed or bypassed) changes, when a count would overflow its {@code int},
     * or when the bucket goes, and are handed over by {@link #drainUsage}. The counters are {@code int}s, and the
     * amount is one counter that holds either kind, so that a million counting buckets stay small; what does not fit
     * is set aside as one small object (every 2^31 milli-tokens, admitted or refused calls, or soft overdrafts, and on
     * a switch between bypassed and consumed amounts; an amount of 2^31 milli-tokens or more is counted on its own).
     * Only stores asked to count have these, so that a store without usage history keeps its buckets smaller still.
     */
    static final class CountingCell extends Cell {
        private static final long HOUR_MILLIS = UsageGranularity.HOUR.millis();

        /** The hour of the counts, in hours since the epoch. */
        int usageHour;
        String usageLimit;
        int admitted;
        int refused;
        int overdrawn;
        /** Milli-tokens consumed, or bypassed when {@link #amountBypassed}. */
        int amountMilli;
        boolean amountBypassed;

        CountingCell() {
        }

        /** A counting copy of {@code cell}, which is retired in its favour. */
        CountingCell(Cell cell) {
            copyFrom(cell);
        }

        /**
         * Counts one decision made at {@code now}: admitted or refused, with the amount it consumed (or only
         * counted, when {@code countOnly}), and whether it left a soft limit in debt; what {@link
         * UsageCounts#ofDecision} counts, kept in this cell's compact form.
         */
        void count(BucketKey key, long now, String limitName, boolean admittedCall, long amountMilli,
                boolean countOnly, boolean inDebt, Queue<PendingUsage> pending) {
            long hour = Math.floorDiv(now, HOUR_MILLIS);
            boolean amounted = admittedCall && amountMilli != 0;
            if (hour != (int) hour || amounted && amountMilli > Integer.MAX_VALUE) {
                pending.add(new PendingUsage(key, limitName, hour * HOUR_MILLIS,        // beyond an int: alone
                        UsageCounts.ofDecision(admittedCall, amountMilli, countOnly, inDebt)));
                return;
            }
            boolean amountClash = amounted && (countOnly != amountBypassed && this.amountMilli != 0
                    || amountMilli > Integer.MAX_VALUE - this.amountMilli);
            if ((int) hour != usageHour || !limitName.equals(usageLimit) || !fits(admittedCall, amountClash, inDebt)) {
                moveTo(pending, key);
                usageHour = (int) hour;
                usageLimit = limitName;
            }
            if (!admittedCall) {
                refused++;
                return;
            }
            admitted++;
            if (amounted) {
                this.amountMilli += (int) amountMilli;
                amountBypassed = countOnly;
            }
            if (inDebt) {
                overdrawn++;
            }
        }

        /** Whether one more decision fits the counters as they are ({@code amountClash}: its amount does not). */
        private boolean fits(boolean admittedCall, boolean amountClash, boolean inDebt) {
            if (!admittedCall) {
                return refused != Integer.MAX_VALUE;
            }
            return !amountClash && admitted != Integer.MAX_VALUE && (!inDebt || overdrawn != Integer.MAX_VALUE);
        }

        /** The counts not handed over yet, zeroed; {@code null} when there are none. */
        UsageCounts take() {
            if (admitted == 0 && refused == 0 && amountMilli == 0) {
                return null;
            }
            UsageCounts counts = new UsageCounts(amountBypassed ? 0 : amountMilli, admitted, refused, overdrawn,
                    amountBypassed ? amountMilli : 0);
            admitted = 0;
            refused = 0;
            overdrawn = 0;
            amountMilli = 0;
            return counts;
        }

        /** The start of the hour the counts are of, in epoch milliseconds. */
        long hourStart() {
            return usageHour * HOUR_MILLIS;
        }

        void moveTo(Queue<PendingUsage> pending, BucketKey key) {
            UsageCounts counts = take();
            if (counts != null) {
                pending.add(new PendingUsage(key, usageLimit, hourStart(), counts));
            }
        }
    }

    /** Counts of in-place decisions set aside until the next {@link #drainUsage}. */
    record PendingUsage(BucketKey key, String limitName, long hourStart, UsageCounts counts) {
    }

    private record SharedSnapshot(long version, ConfigSnapshot snapshot) {
    }

    // ---- configuration

    @Override
    public ConfigSnapshot loadConfig(String entityId, String resource) {
        long version = configVersion;
        if (!configured.containsKey(entityId)) {
            SharedSnapshot known = sharedSnapshots.get(resource);
            if (known != null && known.version() == version) {
                return known.snapshot();
            }
            ConfigSnapshot snapshot = new ConfigSnapshot(null, LevelConfig.EMPTY, LevelConfig.EMPTY,
                    getLevel(ConfigScope.resource(resource)), getLevel(ConfigScope.system()));
            sharedSnapshots.put(resource, new SharedSnapshot(version, snapshot));
            return snapshot;
        }
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
        if (scope.isEntity()) {
            configured.put(scope.entityId(), Boolean.TRUE);
        }
        config.compute(scope, (key, old) -> {
            LevelConfig next = change.apply(old == null ? LevelConfig.EMPTY : old);
            return next.isEmpty() ? null : next;
        });
        configChanged();
    }

    private synchronized void configChanged() {
        configVersion = configVersion + 1;
    }

    // ---- entities

    @Override
    public void createEntity(Entity entity) {
        configured.put(entity.id(), Boolean.TRUE);
        if (entities.putIfAbsent(entity.id(), entity) != null) {
            throw new EntityExistsException(entity.id());
        }
        configChanged();
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
        configChanged();
    }

    @Override
    public boolean deleteEntity(String entityId) {
        boolean existed = entities.remove(entityId) != null;
        config.keySet().removeIf(scope -> entityId.equals(scope.entityId()));
        configChanged();
        for (BucketKey key : buckets.keySet()) {
            if (key.entityId().equals(entityId)) {
                deleteBucket(key);
            }
        }
        return existed;
    }

    @Override
    public List<ConfigScope> entityScopes(String entityId) {
        return config.keySet().stream()
                .filter(scope -> entityId.equals(scope.entityId()))
                .sorted(Comparator.comparing(ConfigScope::resource))
                .toList();
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
        if (debits.size() == 1) {
            AcquireResult result = tryAcquire(debits.get(0), now);
            afterWrite(now);
            return result;
        }
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

    /** {@link #tryAcquire(List, long)} of one bucket: its monitor alone, and one debited state when not overridden. */
    private AcquireResult tryAcquire(BucketDebit debit, long now) {
        while (true) {
            Cell cell = cell(debit.key());
            synchronized (cell) {
                if (cell.retired) {
                    continue;
                }
                List<Limit> limits = debit.limits();
                cell.endIfOver(debit.kept(), now);
                BucketState stored = cell.state(limits);
                BucketState state = stored == null ? BucketState.fresh(limits, now) : stored.refilled(limits, now);
                boolean admitted = debit.countOnly() || state.admits(limits, debit.amountsMilli());
                if (admitted) {
                    BucketState debited = state.debited(limits, debit.amountsMilli(), debit.countOnly(),
                            debit.leaseId());
                    store(cell, debit.overridden() ? state.debitedKept(limits, debit.kept(), debit.amountsMilli(),
                            debit.countOnly(), debit.leaseId()) : debited, debit.kept());
                    state = debited;
                }
                return new AcquireResult(admitted, List.of(new BucketSnapshot(debit.key(), state)));
            }
        }
    }

    @Override
    public InPlaceBuckets inPlaceBuckets() {
        return this;
    }

    /**
     * Decides under the bucket's monitor, on the cell as it is kept: a bucket kept under one limit is refilled and
     * debited limit state to limit state, without a {@link BucketState}; any other is brought under {@code limits}
     * the general way. Either way the result is what {@link #tryAcquire(List, long)} decides and writes.
     */
    @Override
    public <C> boolean takeOne(BucketKey key, Take take, long now, Outcome<C> outcome, C call) {
        List<Limit> limits = take.limits();
        boolean countUsage = take.countUsage();
        if (countUsage && !countingUsage) {
            countingUsage = true;
        }
        boolean admitted;
        while (true) {
            Cell cell = cell(key);
            synchronized (cell) {
                if (cell.retired) {
                    continue;
                }
                if (countUsage && !(cell instanceof CountingCell)) {
                    CountingCell counting = new CountingCell(cell);
                    cell.retired = true;
                    buckets.replace(key, cell, counting);
                    continue;
                }
                cell.endIfOver(limits, now);
                admitted = cell.holdsOne()
                        ? takeSingle(cell, take, now, outcome, call)
                        : takeOneOfMany(cell, take, now, outcome, call);
                if (countUsage) {
                    Limit limit = limits.get(0);
                    ((CountingCell) cell).count(key, now, limit.name(), admitted, take.amountMilli(),
                            take.countOnly(), admitted && limit.isSoft() && cell.balanceOf(limit) < 0, pendingUsage);
                }
                break;
            }
        }
        afterWrite(now);
        return admitted;
    }

    @Override
    public void drainUsage(UsageSink sink) {
        for (var entry : buckets.entrySet()) {
            if (entry.getValue() instanceof CountingCell cell) {
                UsageCounts counts;
                String limitName;
                long hour;
                synchronized (cell) {
                    counts = cell.take();
                    limitName = cell.usageLimit;
                    hour = cell.hourStart();
                }
                if (counts != null) {
                    sink.counted(entry.getKey(), limitName, hour, counts);
                }
            }
        }
        for (PendingUsage pending; (pending = pendingUsage.poll()) != null; ) {
            sink.counted(pending.key(), pending.limitName(), pending.hourStart(), pending.counts());
        }
    }

    /**
     * {@link #takeOne} on a cell that holds one limit's state, or none yet: a limit that holds tokens, kept in the
     * cell's fields, is refilled and debited there, allocating nothing; any other through {@link BucketState}'s
     * per-limit transitions.
     */
    private static <C> boolean takeSingle(Cell cell, Take take, long now, Outcome<C> outcome, C call) {
        Limit limit = take.limits().get(0);
        return cell.states == Cell.INLINE && !limit.isConcurrency() && sameName(cell.limits, limit)
                && !cell.limits.get(0).isConcurrency()
                ? takeInline(cell, limit, take, now, outcome, call)
                : takeOneState(cell, limit, take, now, outcome, call);
    }

    /** {@link #takeOne} through {@link BucketState}'s per-limit transitions. */
    private static <C> boolean takeOneState(Cell cell, Limit limit, Take take, long now, Outcome<C> outcome,
            C call) {
        long amountMilli = take.amountMilli();
        boolean countOnly = take.countOnly();
        Object held = cell.states;
        long last = held == null ? now : cell.lastRefillMillis;
        LimitState old = held != null && sameName(cell.limits, limit) ? cell.single(limit) : null;
        LimitState refilled = BucketState.refilledLimit(limit, old, last, now);
        if (!countOnly && BucketState.refuses(limit, amountMilli, refilled.balanceMilli(), false)) {
            outcome.refused(call, cell.state(take.limits()));
            return false;
        }
        long at = Math.max(last, now);
        LimitState after = amountMilli == 0 ? refilled
                : BucketState.debitedLimit(limit, refilled, at, amountMilli, countOnly, null);
        cell.store(after, at, take.limits());
        outcome.admitted(call, after.balanceMilli(), at);
        return true;
    }

    /**
     * {@link #takeOne} on a limit kept in the plain fields of a cell: the refill, check and debit of {@link
     * LimitRules}, which {@link BucketState} follows too, in place.
     */
    private static <C> boolean takeInline(Cell cell, Limit limit, Take take, long now, Outcome<C> outcome, C call) {
        long amountMilli = take.amountMilli();
        boolean countOnly = take.countOnly();
        long last = cell.lastRefillMillis;
        Limits.Parameters p = Limits.parametersAt(limit, Math.max(now, last));
        long balance = LimitRules.refilledBalance(limit, p, cell.balanceMilli, cell.windowStartMillis, last, now);
        if (BucketState.refuses(limit, amountMilli, balance, countOnly)) {
            outcome.refused(call, cell.state());
            return false;
        }
        long at = Math.max(last, now);
        long window = LimitRules.refilledWindow(limit, p, cell.windowStartMillis, last, now);
        if (amountMilli != 0) {
            balance = LimitRules.debitedBalance(balance, amountMilli, countOnly);
            window = LimitRules.debitedWindow(limit, window, amountMilli, countOnly, at);
            cell.consumedMilli = LimitRules.debitedConsumed(cell.consumedMilli, amountMilli);
        }
        cell.balanceMilli = balance;
        cell.windowStartMillis = window;
        cell.lastRefillMillis = at;
        cell.limits = take.limits();
        outcome.admitted(call, balance, at);
        return true;
    }

    private static boolean sameName(List<Limit> kept, Limit limit) {
        return kept.size() == 1 && (kept.get(0) == limit || kept.get(0).name().equals(limit.name()));
    }

    /** {@link #takeOne} on a cell that holds several limits' states. */
    private static <C> boolean takeOneOfMany(Cell cell, Take take, long now, Outcome<C> outcome, C call) {
        List<Limit> limits = take.limits();
        boolean countOnly = take.countOnly();
        Limit limit = limits.get(0);
        Map<String, Long> amounts = Map.of(limit.name(), take.amountMilli());
        BucketState stored = cell.state(limits);
        BucketState state = stored.refilled(limits, now);
        if (!countOnly && !state.admits(limits, amounts)) {
            outcome.refused(call, stored);
            return false;
        }
        BucketState debited = state.debited(limits, amounts, countOnly, null);
        cell.store(debited, limits);
        outcome.admitted(call, debited.limits().get(limit.name()).balanceMilli(), debited.lastRefillMillis());
        return true;
    }

    private Cell cell(BucketKey key) {
        Cell cell = buckets.get(key);
        return cell != null ? cell
                : buckets.computeIfAbsent(key, k -> countingUsage ? new CountingCell() : new Cell());
    }

    @Override
    public void apply(List<BucketDebit> given, long now) {
        List<BucketDebit> debits = shared(given);
        if (debits.size() == 1) {
            apply(debits.get(0), now);
            afterWrite(now);
            return;
        }
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

    /** {@link #apply(List, long)} of one bucket, under its monitor alone. */
    private void apply(BucketDebit debit, long now) {
        while (true) {
            Cell cell = cell(debit.key());
            synchronized (cell) {
                if (cell.retired) {
                    continue;
                }
                List<Limit> limits = debit.limits();
                cell.endIfOver(debit.kept(), now);
                BucketState stored = cell.state(limits);
                BucketState refilled = stored == null ? BucketState.fresh(limits, now) : stored.refilled(limits, now);
                store(cell, refilled.adjusted(limits, debit.amountsMilli(), debit.countOnly(), debit.leaseId()),
                        limits);
                return;
            }
        }
    }

    @Override
    public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
        for (BucketDebit debit : debits) {
            BucketState state = stored(debit.key(), debit.kept(), now);
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
        while (true) {
            Cell cell = buckets.get(key);
            if (cell == null) {
                return;
            }
            synchronized (cell) {
                if (cell.retired) {
                    continue;                 // evicted, or replaced by a counting copy: look again
                }
                cell.retire(pendingUsage, key);
                buckets.remove(key, cell);
                return;
            }
        }
    }

    /**
     * The state of the bucket {@code key} as stored, or {@code null} when the store holds none. A retired cell was
     * evicted (then the map no longer has it) or replaced by a counting copy (then the map has the copy): either way
     * the map is asked again. A bucket whose life ended by {@code now} under {@code kept} (the limits it is kept
     * under) counts as none.
     */
    private BucketState stored(BucketKey key, List<Limit> kept, long now) {
        while (true) {
            Cell cell = buckets.get(key);
            if (cell == null) {
                return null;
            }
            synchronized (cell) {
                if (!cell.retired) {
                    return cell.states == null || cell.ended(kept, now) ? null : cell.state(kept);
                }
            }
        }
    }

    /** The number of buckets held now, for tests and metrics. */
    public int bucketCount() {
        return buckets.size();
    }

    /** Whether the store holds the bucket {@code key} now (it was written and not evicted or deleted), for tests. */
    public boolean holds(BucketKey key) {
        return buckets.containsKey(key);
    }

    /**
     * Removes every bucket whose life ended by {@code now} ({@link BucketLife}: full at or after its horizon, under
     * the limits it was written under and under those its configuration gives it now): such a bucket reads as a new
     * one, consumption counters included, so removing it changes no answer; one that owes is kept.
     *
     * @return how many buckets were removed
     */
    public int evictIdle(long now) {
        return evictIdle(now, false, 0);
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
        // the instant of the write that runs the sweep: a clock stepping back (or another limiter's clock on the
        // same store) only keeps some full buckets one sweep longer
        int evicted = evictIdle(now, true, previousSweepAt);
        previousSweepAt = now;
        return evicted;
    }

    /**
     * Removes the buckets whose life ended by {@code now}; when {@code onlyIdle}, only those last written before
     * {@code writtenBefore}.
     */
    private int evictIdle(long now, boolean onlyIdle, long writtenBefore) {
        int evicted = 0;
        for (var entry : buckets.entrySet()) {
            Cell cell = entry.getValue();
            synchronized (cell) {
                if (cell.retired || onlyIdle && cell.states != null && cell.lastRefillMillis >= writtenBefore) {
                    continue;
                }
                if (cell.states == null || cell.ended(cell.limits, now) && endedInForce(entry.getKey(), cell, now)) {
                    cell.retire(pendingUsage, entry.getKey());
                    buckets.remove(entry.getKey(), cell);
                    evicted++;
                }
            }
        }
        return evicted;
    }

    /**
     * Whether {@code cell}, ended under the limits it was written under, has also ended under those its stored
     * configuration gives it now: after a change since its last write it may still owe, or refill, under them
     * (the limits a call brings itself, the store cannot know).
     */
    private boolean endedInForce(BucketKey key, Cell cell, long now) {
        List<Limit> inForce = ConfigResolver.resolve(loadConfig(key.entityId(), key.resource()), null).limits();
        return inForce.isEmpty() || cell.ended(inForce, now);
    }

    private void afterWrite(long now) {
        if (ThreadLocalRandom.current().nextInt(WRITE_SAMPLE) != 0) {
            return;
        }
        long writes = writesSinceSweep.addAndGet(WRITE_SAMPLE);
        if (writes >= sweepInterval && sweeping.compareAndSet(false, true)) {
            try {
                writesSinceSweep.set(0);
                sweep(now);
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
            cells[i].endIfOver(debits.get(i).kept(), now);
            BucketState state = cells[i].state(limits);
            states[i] = state == null ? BucketState.fresh(limits, now) : state.refilled(limits, now);
        }
        return states;
    }

    private static void store(Cell cell, BucketState state, List<Limit> limits) {
        cell.store(state, limits);
    }

    private interface Action<T> {
        T run(Cell[] cells);
    }

    /** Runs {@code action} holding the monitors of every bucket of {@code debits}, created if missing. */
    private <T> T withBuckets(List<BucketDebit> debits, Action<T> action) {
        while (true) {
            Cell[] cells = new Cell[debits.size()];
            for (int i = 0; i < cells.length; i++) {
                cells[i] = cell(debits.get(i).key());
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
