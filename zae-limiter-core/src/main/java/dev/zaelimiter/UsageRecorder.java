package dev.zaelimiter;

import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.store.UsagePeriod;
import dev.zaelimiter.store.UsageStore;
import dev.zaelimiter.store.UsageWrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.ref.WeakReference;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.Supplier;

/**
 * Counts what a limiter's decisions consume, per bucket, limit and UTC hour, in this process, and adds the counts to
 * the store's usage history now and then: each hour and each day period of a bucket gets at most one write per
 * flush. A call only adds to counters held in memory.
 *
 * <p>Exact: counters are drained atomically, and each period has at most one write in flight. A write that failed
 * (or whose answer was lost) is sent again unchanged, with the same sequence number, until the store answers (or,
 * when the store rejects it as invalid, until {@link #MAX_REJECTIONS} attempts set it aside); the store applies a
 * writer's sequence to a period once, so a retried or duplicated write never counts twice. New counts wait for the
 * next sequence.
 */
final class UsageRecorder implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UsageRecorder.class);
    private static final ScheduledExecutorService FLUSHER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "zae-limiter-usage-flush");
        thread.setDaemon(true);
        return thread;
    });

    private final UsageStore store;
    /** The store's in-place decisions, which count their own usage, or {@code null}. */
    private final InPlaceBuckets local;
    private final Clock clock;
    private final String writerId = UUID.randomUUID().toString();
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentHashMap<Slot, SlotCounters> live = new ConcurrentHashMap<>();
    private final Map<Target, Outgoing> outgoing = new LinkedHashMap<>();
    private final Object flushLock = new Object();
    private final ScheduledFuture<?> schedule;
    private volatile long failedAt = -1;

    /** One bucket in one UTC hour. */
    private record Slot(BucketKey key, long hourStart) {
    }

    /** One period a write goes to. */
    private record Target(BucketKey key, UsageGranularity granularity, long start) {
    }

    /** What waits for a period: one write in flight (unanswered), and the counts that will follow it. */
    private static final class Outgoing {
        UsageWrite inFlight;
        int rejections;
        Map<String, UsageCounts> next = new HashMap<>();
    }

    /**
     * The counters of one slot. A call counts into it between {@link #enter} and {@link #exit}; the flush retires an
     * idle slot of a past hour, waits for the calls still inside it, drains it one last time and drops it, so no count
     * is lost: a call that finds it retired counts into a fresh slot instead.
     */
    private static final class SlotCounters {
        private static final AtomicIntegerFieldUpdater<SlotCounters> WRITERS =
                AtomicIntegerFieldUpdater.newUpdater(SlotCounters.class, "writers");

        private static final Counters[] NONE = new Counters[0];

        /** Copied on write: a slot gains a limit rarely (once per limit per hour) and is read on every call. */
        private volatile Counters[] limits = NONE;
        private volatile int writers;
        volatile boolean retired;

        void enter() {
            WRITERS.incrementAndGet(this);
        }

        void exit() {
            WRITERS.decrementAndGet(this);
        }

        int writers() {
            return writers;
        }

        Counters[] limits() {
            return limits;
        }

        Counters counters(String limitName) {
            Counters found = find(limits, limitName);
            return found != null ? found : add(limitName);
        }

        private synchronized Counters add(String limitName) {
            Counters[] current = limits;
            Counters found = find(current, limitName);
            if (found != null) {
                return found;
            }
            Counters added = new Counters(limitName);
            Counters[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = added;
            limits = grown;
            return added;
        }

        private static Counters find(Counters[] limits, String limitName) {
            for (Counters counters : limits) {
                if (counters.limitName.equals(limitName)) {
                    return counters;
                }
            }
            return null;
        }
    }

    /**
     * The counters of one limit in one slot; drained by the flush. Plain fields behind field updaters rather than five
     * {@code AtomicLong}s: a slot lives for every bucket used in the hour, so its size is heap per active bucket.
     */
    private static final class Counters {
        private static final AtomicLongFieldUpdater<Counters> CONSUMED =
                AtomicLongFieldUpdater.newUpdater(Counters.class, "consumedMilli");
        private static final AtomicLongFieldUpdater<Counters> ADMITTED =
                AtomicLongFieldUpdater.newUpdater(Counters.class, "admitted");
        private static final AtomicLongFieldUpdater<Counters> REFUSED =
                AtomicLongFieldUpdater.newUpdater(Counters.class, "refused");
        private static final AtomicLongFieldUpdater<Counters> OVERDRAWN =
                AtomicLongFieldUpdater.newUpdater(Counters.class, "overdrawn");
        private static final AtomicLongFieldUpdater<Counters> BYPASSED =
                AtomicLongFieldUpdater.newUpdater(Counters.class, "bypassedMilli");
        private static final AtomicLongFieldUpdater<Counters> DEGRADED =
                AtomicLongFieldUpdater.newUpdater(Counters.class, "degradedMilli");

        final String limitName;
        private volatile long consumedMilli;
        private volatile long admitted;
        private volatile long refused;
        private volatile long overdrawn;
        private volatile long bypassedMilli;
        private volatile long degradedMilli;

        Counters(String limitName) {
            this.limitName = limitName;
        }

        /** Adds what one decision counts ({@link UsageCounts#ofDecision}). */
        void add(UsageCounts counts) {
            addIfAny(CONSUMED, counts.consumedMilli());
            addIfAny(ADMITTED, counts.admitted());
            addIfAny(REFUSED, counts.refused());
            addIfAny(OVERDRAWN, counts.overdrawn());
            addIfAny(BYPASSED, counts.bypassedMilli());
            addIfAny(DEGRADED, counts.degradedMilli());
        }

        private void addIfAny(AtomicLongFieldUpdater<Counters> counter, long amount) {
            if (amount != 0) {
                counter.addAndGet(this, amount);
            }
        }

        /** Adds {@code milli} to what was consumed, or to what was bypassed when the call was only counted. */
        void spent(boolean countOnly, long milli) {
            (countOnly ? BYPASSED : CONSUMED).addAndGet(this, milli);
        }

        UsageCounts drain() {
            return new UsageCounts(CONSUMED.getAndSet(this, 0), ADMITTED.getAndSet(this, 0),
                    REFUSED.getAndSet(this, 0), OVERDRAWN.getAndSet(this, 0), BYPASSED.getAndSet(this, 0),
                    DEGRADED.getAndSet(this, 0));
        }
    }

    /**
     * Records into {@code store}, flushing every {@code interval} in the background ({@link Duration#ZERO}: only when
     * {@link #flush()} or {@link #close()} is called).
     */
    UsageRecorder(UsageStore store, InPlaceBuckets local, Clock clock, Duration interval) {
        this.store = store;
        this.local = local;
        this.clock = clock;
        if (interval.isZero()) {
            this.schedule = null;
        } else {
            WeakReference<UsageRecorder> self = new WeakReference<>(this);
            long millis = interval.toMillis();
            ScheduledFuture<?>[] holder = new ScheduledFuture<?>[1];
            this.schedule = FLUSHER.scheduleWithFixedDelay(() -> {
                UsageRecorder recorder = self.get();
                if (recorder == null) {
                    holder[0].cancel(false);         // the limiter was dropped without close()
                    return;
                }
                recorder.flushQuietly();
            }, millis, millis, TimeUnit.MILLISECONDS);
            holder[0] = schedule;
        }
    }

    // ---- recording (the caller's thread)

    /** An admitted call: its debits, and the statuses that say which soft limits are in debt. */
    void admitted(List<BucketDebit> debits, Supplier<List<LimitStatus>> statuses, long now) {
        for (BucketDebit debit : debits) {
            SlotCounters slot = enter(debit.key(), now);
            try {
                for (Limit limit : debit.limits()) {
                    Counters counters = counters(slot, limit.name());
                    long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
                    boolean inDebt = limit.isSoft() && overdrawn(statuses.get(), debit.key(), limit.name());
                    counters.add(UsageCounts.ofDecision(true, amount, debit.countOnly(), inDebt));
                }
            } finally {
                slot.exit();
            }
        }
    }

    /**
     * A call admitted without the store, which was unavailable: each target's amounts, counted as admitted and
     * degraded. A target whose ids, limit names or amounts are invalid is not counted (the store never checked them).
     */
    void degraded(AcquireRequest request, long now) {
        degraded(request.entityId(), request.resource(), request.consume(), now);
        for (AcquireRequest.Target target : request.also()) {
            degraded(target.entityId(), target.resource(), target.consume(), now);
        }
    }

    private void degraded(String entityId, String resource, Map<String, Long> amounts, long now) {
        BucketKey key;
        try {
            key = new BucketKey(Identifiers.entityId("entityId", entityId), Identifiers.resource("resource", resource));
            RequestPlanner.validateAmounts(amounts);
        } catch (ValidationException e) {
            return;
        }
        SlotCounters slot = enter(key, now);
        try {
            amounts.forEach((name, amount) -> counters(slot, name)
                    .add(new UsageCounts(0, 1, 0, 0, 0, amount * Limits.MILLI)));   // admitted, not debited
        } finally {
            slot.exit();
        }
    }

    /** A call a hard limit refused: counted on each hard limit whose status says it was exceeded. */
    void refused(List<LimitStatus> statuses, long now) {
        for (LimitStatus status : statuses) {
            if (!status.exceeded() || status.soft()) {
                continue;
            }
            SlotCounters slot = enter(new BucketKey(status.entityId(), status.resource()), now);
            try {
                counters(slot, status.limitName()).add(UsageCounts.ofDecision(false, 0, false, false));
            } finally {
                slot.exit();
            }
        }
    }

    /**
     * Adjustments and rollbacks a lease wrote: net consumption. Concurrency slots given back are not consumption
     * (a slot counts once, when taken).
     */
    void adjusted(List<BucketDebit> changes, long now) {
        for (BucketDebit change : changes) {
            SlotCounters slot = null;
            try {
                for (Limit limit : change.limits()) {
                    long amount = change.amountsMilli().getOrDefault(limit.name(), 0L);
                    if (amount == 0 || limit.isConcurrency()) {
                        continue;
                    }
                    if (slot == null) {
                        slot = enter(change.key(), now);
                    }
                    Counters counters = counters(slot, limit.name());
                    counters.spent(change.countOnly(), amount);
                }
            } finally {
                if (slot != null) {
                    slot.exit();
                }
            }
        }
    }

    private static boolean overdrawn(List<LimitStatus> statuses, BucketKey key, String limitName) {
        for (LimitStatus status : statuses) {
            if (status.overdrawn() && status.limitName().equals(limitName) && status.entityId().equals(key.entityId())
                    && status.resource().equals(key.resource())) {
                return true;
            }
        }
        return false;
    }

    /** The slot of {@code key} at {@code now}, entered: the caller counts into it, then decrements its writers. */
    private SlotCounters enter(BucketKey key, long now) {
        Slot slot = new Slot(key, UsageGranularity.HOUR.periodStart(now));
        while (true) {
            SlotCounters counters = live.computeIfAbsent(slot, s -> new SlotCounters());
            counters.enter();
            if (!counters.retired) {
                return counters;
            }
            counters.exit();
            live.remove(slot, counters);
        }
    }

    private static Counters counters(SlotCounters slot, String limitName) {
        return slot.counters(limitName);
    }

    // ---- flushing

    /** How many times a write the store rejects (not one it could not take) is sent before it is set aside. */
    static final int MAX_REJECTIONS = 3;

    /**
     * Drains the counters and sends each period with counts (or an unanswered write) one write. A period whose write
     * fails does not hold back the others; a write the store rejects as invalid (rather than being unavailable) is
     * set aside with a warning after {@value #MAX_REJECTIONS} attempts.
     *
     * @return whether every write was answered
     * @throws RuntimeException the first failure, after every period was tried; when the store could not be written
     *                          ({@link StoreUnavailableException}) nothing is lost, the next flush sends it again
     */
    boolean flush() {
        synchronized (flushLock) {
            drain();
            boolean complete = true;
            RuntimeException failure = null;
            for (Iterator<Map.Entry<Target, Outgoing>> it = outgoing.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Target, Outgoing> entry = it.next();
                Outgoing out = entry.getValue();
                if (out.inFlight == null) {
                    if (out.next.isEmpty()) {
                        it.remove();
                        continue;
                    }
                    Target target = entry.getKey();
                    out.inFlight = new UsageWrite(new UsagePeriod(target.key(), target.granularity(), target.start(),
                            out.next), writerId, sequence.incrementAndGet());
                    out.next = new HashMap<>();
                }
                try {
                    store.add(out.inFlight);
                } catch (StoreUnavailableException e) {
                    failure = failure != null ? failure : e;
                    complete = false;
                    continue;
                } catch (RuntimeException e) {
                    failure = failure != null ? failure : e;
                    complete = false;
                    if (++out.rejections < MAX_REJECTIONS) {
                        continue;
                    }
                    log.warn("usage history set aside after {} rejected writes ({} of {} from {}): {}",
                            out.rejections, out.inFlight.period().granularity(), out.inFlight.period().key(),
                            out.inFlight.period().startMillis(), e.getMessage());
                }
                out.inFlight = null;
                out.rejections = 0;
                if (!out.next.isEmpty()) {
                    complete = false;
                } else {
                    it.remove();
                }
            }
            if (failure != null) {
                throw failure;
            }
            return complete;
        }
    }

    /** Moves what calls counted into the writes of their hour and day; drops idle slots of past hours. */
    private void drain() {
        if (local != null) {
            local.drainUsage(this::counted);
        }
        long currentHour = UsageGranularity.HOUR.periodStart(clock.millis());
        for (Map.Entry<Slot, SlotCounters> entry : live.entrySet()) {
            Slot slot = entry.getKey();
            SlotCounters counters = entry.getValue();
            boolean idle = drain(slot, counters);
            if (idle && slot.hourStart() < currentHour) {
                counters.retired = true;
                while (counters.writers() != 0) {
                    Thread.onSpinWait();                     // a call is counting into it: let it finish
                }
                drain(slot, counters);
                live.remove(slot, counters);
            }
        }
    }

    /** Drains one slot; returns whether it was empty. */
    private boolean drain(Slot slot, SlotCounters counters) {
        boolean idle = true;
        for (Counters limit : counters.limits()) {
            UsageCounts counts = limit.drain();
            if (counts.isZero()) {
                continue;
            }
            idle = false;
            counted(slot.key(), limit.limitName, slot.hourStart(), counts);
        }
        return idle;
    }

    /** Counts of one limit of {@code key} in one hour, added to the hour and to its day. */
    private void counted(BucketKey key, String limitName, long hourStart, UsageCounts counts) {
        add(new Target(key, UsageGranularity.HOUR, hourStart), limitName, counts);
        add(new Target(key, UsageGranularity.DAY, UsageGranularity.DAY.periodStart(hourStart)), limitName, counts);
    }

    private void add(Target target, String limitName, UsageCounts counts) {
        outgoing.computeIfAbsent(target, t -> new Outgoing()).next.merge(limitName, counts, UsageCounts::plus);
    }

    /** Flushes, logging a failure (at most once a minute) instead of raising. */
    private void flushQuietly() {
        try {
            flush();
            failedAt = -1;
        } catch (RuntimeException e) {
            long now = System.currentTimeMillis();
            if (failedAt < 0 || now - failedAt > 60_000) {
                failedAt = now;
                log.warn("usage history not written yet (kept in memory, sent again at the next flush): {}",
                        e.getMessage());
            }
        }
    }

    /**
     * Stops the background flush and sends what is left: at most {@value #MAX_REJECTIONS} rounds, until every period
     * is answered; what the store still could not take after them is lost, with a warning.
     */
    @Override
    public void close() {
        if (schedule != null) {
            schedule.cancel(false);
        }
        RuntimeException failure = null;
        for (int round = 0; round < MAX_REJECTIONS; round++) {
            try {
                if (flush()) {
                    return;
                }
                failure = null;                  // counts were left behind an answered write: send them too
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (failure != null) {
            log.warn("usage history of this process not written on close: {}", failure.getMessage());
        }
    }
}
