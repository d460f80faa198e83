package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * This process's batches of tokens of limits that {@linkplain Limit#withLocalReservations() reserve}: calls are served
 * from a local pool; when it runs short one call writes for everyone (its own amount, the calls waiting behind it, and
 * a batch sized to the demand this process sees), and the others wait for that write instead of writing themselves.
 * Unused tokens go back to the bucket when the pool's hold nears its expiry, when the process stops asking, and on
 * close. See {@link Holds} for why totals stay exact.
 *
 * <p>Longer than most files on purpose: the pool's life (serving, combining waiting calls into one write, background
 * batches, returns when quiet, on close and when a process dies in tests) is one state machine under one monitor.
 */
final class LocalReservations {

    private static final Logger log = LoggerFactory.getLogger(LocalReservations.class);

    /** How long a hold lasts: the longest that unused tokens stay away from other processes (unless renewed). */
    static final long HOLD_MILLIS = 1_000;

    /** A pool stops handing out this long before its hold expires. */
    static final long MARGIN_MILLIS = 100;

    /** A batch covers about this much of the demand this process sees. */
    static final long BATCH_MILLIS = 50;

    /**
     * After the bucket could not give what a write asked for, calls are refused locally until it will have refilled
     * that much, as the write's answer shows it: at least this long, and at most {@link #HOLD_MILLIS}.
     */
    static final long PACE_MILLIS = 20;

    /** The window over which this process measures its demand on a pool. */
    private static final long RATE_WINDOW_MILLIS = 100;

    /** A pool with no demand for this long gives its tokens back. */
    private static final long IDLE_MILLIS = 200;

    /** How often pools that went quiet or near their expiry give their tokens back. */
    private static final long SWEEP_MILLIS = 100;

    /** The longest close waits for a pool's write in flight before giving its tokens back. */
    static final long CLOSE_WAIT_MILLIS = 30_000;

    /** The longest a call waits for another call's write to its pool; then the store counts as unavailable. */
    private static final long WAIT_MILLIS = 2_000;

    private final String process = UUID.randomUUID().toString().substring(0, 13);
    private final BucketWrites writes;
    private final Clock clock;
    private final Executor executor;
    private final Map<PoolKey, Pool> pools = new ConcurrentHashMap<>();
    private ScheduledExecutorService sweeper;
    /** Set once by {@link #close()}: from then on no call takes a batch, so nothing is held after the sweep. */
    private volatile boolean closed;

    private record PoolKey(BucketKey bucket, String limit) {
    }

    /** One limit's local pool; guarded by its own monitor. */
    private static final class Pool {
        BucketDebit debit;
        Limit limit;
        String entry;
        long entryAmount;
        long unused;
        long handed;
        long expiry;
        boolean exchanging;
        /** Unmapped by the sweep: a call that finds it so takes the pool now mapped under its key. */
        boolean evicted;
        /** Holds tokens taken under a configuration no longer in force: they are given back, never handed out. */
        boolean stale;
        long waiting;
        /** The span in which calls are refused locally: from the write that found the bucket short, until. */
        long shortSince;
        long shortUntil;
        long windowStart;
        long windowDemand;
        long demandPerWindow;
        long lastDemandAt;
        /** How long this pool's writes take, smoothed, in nanoseconds. */
        long writeNanos;
        /** A batch that doubles each time calls find the pool dry while demand goes on; 0 once the pool idles. */
        long grown;
        BucketState state;

        /**
         * Whether a call at {@code now} is refused locally: a clock behind the write that found the bucket short
         * asks the store, which counts from the bucket's last write (so does the in-memory store).
         */
        boolean isShort(long now) {
            return now >= shortSince && now < shortUntil;
        }

        boolean usable(long now) {
            return now < expiry - MARGIN_MILLIS;
        }

        void record(long amount, long now) {
            if (now >= windowStart + RATE_WINDOW_MILLIS || now < windowStart) {
                demandPerWindow = now >= windowStart + 2 * RATE_WINDOW_MILLIS ? windowDemand / 2 : windowDemand;
                windowStart = now;
                windowDemand = 0;
            }
            windowDemand += amount;
            lastDemandAt = now;
        }

        /**
         * The batch to ask for: the demand of about {@link #BATCH_MILLIS}, or of two writes when writes take longer
         * (so that the next batch arrives before this one runs out), at most a quarter of the capacity.
         */
        long batch(long amount, long now) {
            long demand = Math.max(demandPerWindow, windowDemand);
            long span = Math.max(BATCH_MILLIS, 2 * TimeUnit.NANOSECONDS.toMillis(writeNanos));
            long batch = Math.max(grown, demand * span / RATE_WINDOW_MILLIS);
            if (batch < 2 * amount) {
                return 0;
            }
            batch = Math.min(batch, Limits.parametersAt(limit, now).capacityMilli() / 4);
            return batch - batch % Limits.MILLI;
        }
    }

    LocalReservations(BucketWrites writes, Clock clock, Executor executor) {
        this.writes = writes;
        this.clock = clock;
        this.executor = executor;
    }

    /** The id this process writes its holds under. */
    String process() {
        return process;
    }

    /** The reserving limit a debit takes from alone, or {@code null} when it cannot be served from a pool. */
    static Limit reserving(BucketDebit debit) {
        if (debit.countOnly() || debit.overridden() || debit.takesSlots()) {
            return null;
        }
        Limit only = null;
        for (Limit limit : debit.limits()) {
            long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
            if (amount == 0) {
                continue;
            }
            if (only != null || amount < 0 || !limit.localReservations()) {
                return null;
            }
            only = limit;
        }
        return only;
    }

    /** Decides {@code debit}, which takes from {@code limit} alone, from this process's pool when it can. */
    BucketWrites.Outcome acquire(BucketDebit debit, Limit limit, long now) {
        long amount = debit.amountsMilli().get(limit.name());
        Pool pool = pools.get(new PoolKey(debit.key(), limit.name()));
        if (pool == null) {
            startSweeper();
            pool = pools.computeIfAbsent(new PoolKey(debit.key(), limit.name()), k -> new Pool());
        }
        long used;
        long returned;
        long wanted;
        synchronized (pool) {
            if (pool.evicted) {
                return acquire(debit, limit, now);
            }
            if (pool.limit != null && !pool.limit.equals(limit)) {
                pool.stale = true;
                pool.grown = 0;
                pool.shortUntil = 0;
            }
            pool.debit = debit;
            pool.limit = limit;
            now = Math.max(now, clock.millis());           // a stalled caller must not serve from a hold past its margin
            pool.record(amount, now);
            long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
            while (true) {
                if (!pool.stale && !closed && pool.usable(now) && pool.unused >= amount) {
                    pool.unused -= amount;
                    pool.handed += amount;
                    prefetchIfLow(pool, amount, now);
                    return new BucketWrites.Outcome(true, local(pool, now));
                }
                if (!pool.exchanging) {
                    break;
                }
                long left = waitUntil - System.nanoTime();
                if (left <= 0) {
                    throw new StoreUnavailableException("DynamoDB store: another call's write to the pool of "
                            + debit.key() + " took longer than " + WAIT_MILLIS + " ms", null);
                }
                pool.waiting += amount;
                try {
                    pool.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StoreUnavailableException("interrupted while waiting for another call's write to the "
                            + "pool of " + debit.key(), e);
                } finally {
                    pool.waiting -= amount;
                }
                now = Math.max(now, clock.millis());
            }
            if (pool.isShort(now) && pool.state != null) {
                // refused without asking: the bucket as this process last learned it (the other limits' writes
                // included) when that refuses the call too, else the pool's view
                BucketState known = writes.estimate(debit, now);
                boolean refuses = known != null && !known.admits(debit.limits(), debit.amountsMilli());
                return new BucketWrites.Outcome(false, refuses ? known : local(pool, now));
            }
            if (pool.windowDemand >= 2 * amount) {
                long cap = Limits.parametersAt(limit, now).capacityMilli() / 4;
                pool.grown = Math.min(cap, Math.max(2 * pool.grown, 2 * amount));
            }
            used = pool.handed;
            returned = pool.usable(now) && !pool.stale && !closed ? 0 : pool.unused;
            pool.unused -= returned;
            wanted = closed ? 0 : Math.max(0, pool.batch(amount, now) - pool.unused) + pool.waiting;
            pool.exchanging = true;
        }
        BucketWrites.Exchanged result = null;
        long started = System.nanoTime();
        try {
            result = writes.exchange(debit, limit, process, pool.entry, pool.entryAmount, used, returned, wanted,
                    now + HOLD_MILLIS, now);
            return new BucketWrites.Outcome(result.admitted(), result.state());
        } finally {
            settle(pool, result, amount, used, returned, wanted, now, started);
        }
    }

    /**
     * Takes what an exchange did into the pool, and wakes the calls waiting for it; a write that got less than the
     * call's {@code amount} and the {@code wanted} batch leaves the pool refusing locally until the bucket refills.
     */
    private void settle(Pool pool, BucketWrites.Exchanged result, long amount, long used, long returned, long wanted,
            long now, long startedNanos) {
        synchronized (pool) {
            long took = System.nanoTime() - startedNanos;
            pool.writeNanos = pool.writeNanos == 0 ? took : (pool.writeNanos * 3 + took) / 4;
            pool.exchanging = false;
            pool.notifyAll();
            pool.stale = pool.stale && result != null && !result.admitted() && !result.lost();
            if (result == null) {
                // the write's outcome is unknown: nothing held before may be handed out, and the next write reads
                pool.entry = BucketWrites.UNKNOWN_ENTRY;
                pool.unused = 0;
                pool.handed = 0;
                return;
            }
            pool.state = result.state();
            if (result.lost()) {
                pool.unused = 0;
                pool.handed = 0;
            }
            if (!result.admitted()) {
                if (!result.lost()) {
                    pool.unused += returned;
                }
                pool.shortSince = now;
                pool.shortUntil = now + refillWait(pool.limit, result.state(), amount + wanted);
                pool.entry = result.entry();
                pool.entryAmount = result.entryAmount();
                if (result.lost()) {
                    pool.handed = result.entryAmount();
                }
                if (result.entry() == null) {
                    pool.expiry = 0;
                }
                return;
            }
            if (!result.lost()) {
                pool.handed -= used;
            }
            pool.unused += result.taken();
            pool.entry = result.entry();
            pool.entryAmount = result.entryAmount();
            pool.expiry = result.entry() == null ? 0 : now + HOLD_MILLIS;
            if (result.taken() < wanted) {
                pool.shortSince = now;
                pool.shortUntil = now + refillWait(pool.limit, result.state(), wanted);
            }
        }
    }

    /**
     * How long until the bucket, as {@code state} shows it to this process, has {@code need} milli-tokens again
     * (never more than its capacity): from {@link #PACE_MILLIS} to {@link #HOLD_MILLIS}, since other processes'
     * holds, which the refill does not see, come back within one hold's life.
     */
    private static long refillWait(Limit limit, BucketState state, long need) {
        long capacity = Limits.parametersAt(limit, state.lastRefillMillis()).capacityMilli();
        long wait = state.retryAfterMillis(limit, Math.min(need, capacity));
        return Math.max(PACE_MILLIS, Math.min(wait, HOLD_MILLIS));
    }

    /**
     * What a call served by the pool reports: the bucket as last written, with the limit showing what this process
     * can still hand out without asking (never more than the bucket has: a debt shows as it is).
     */
    private BucketState local(Pool pool, long now) {
        BucketState base = writes.estimate(pool.debit, now);  // the other limits as this process last wrote them
        if (base == null) {
            base = pool.state != null ? pool.state : BucketState.fresh(pool.debit.limits(), now);
        }
        Map<String, LimitState> limits = new HashMap<>(base.limits());
        LimitState s = limits.get(pool.limit.name());
        long balance = pool.usable(now) ? pool.unused : 0;
        if (s != null && s.balanceMilli() < balance && s.balanceMilli() < 0) {
            balance = s.balanceMilli();                   // a bucket in debt shows its debt, and waits it out
        }
        limits.put(pool.limit.name(), new LimitState(balance, s == null ? 0 : s.consumedMilli()));
        return new BucketState(Math.max(now, base.lastRefillMillis()), limits);
    }

    /** Asks for the next batch in the background when the pool runs low, so that calls need not wait for it. */
    private void prefetchIfLow(Pool pool, long amount, long now) {
        long batch = pool.batch(amount, now);
        if (batch == 0 || closed || pool.exchanging || pool.isShort(now)
                || (pool.unused >= batch / 2 && now < pool.expiry - HOLD_MILLIS / 2)) {
            return;
        }
        BucketDebit zero = pool.debit.withAmounts(Map.of(pool.limit.name(), 0L));
        long wanted = batch - pool.unused;
        long used = pool.handed;
        long returned = 0;
        pool.exchanging = true;
        Runnable task = () -> {
            long at = clock.millis();
            long started = System.nanoTime();
            BucketWrites.Exchanged result = null;
            try {
                result = writes.exchange(zero, pool.limit, process, pool.entry, pool.entryAmount, used, returned,
                        wanted, at + HOLD_MILLIS, at);
            } catch (RuntimeException e) {
                log.debug("background reservation for {} failed: {}", pool.debit.key(), e.toString());
            } finally {
                settle(pool, result, 0, used, returned, wanted, at, started);
            }
        };
        try {
            executor.execute(task);
        } catch (RuntimeException rejected) {
            pool.exchanging = false;
        }
    }

    /**
     * Gives back what pools hold when their demand stopped or their hold nears its end ({@code all}: every pool, as
     * on close), retiring what they handed out, one write per pool.
     */
    void sweep(boolean all) {
        long now = clock.millis();
        for (Map.Entry<PoolKey, Pool> mapped : List.copyOf(pools.entrySet())) {
            Pool pool = mapped.getValue();
            long used;
            long returned;
            BucketDebit zero;
            synchronized (pool) {
                if (all) {
                    awaitExchange(pool);
                }
                if (pool.entry == null && !pool.exchanging && pool.waiting == 0 && pool.unused == 0
                        && pool.handed == 0 && now - pool.lastDemandAt >= IDLE_MILLIS) {
                    pool.evicted = pools.remove(mapped.getKey(), pool);
                    continue;
                }
                boolean idle = now - pool.lastDemandAt >= IDLE_MILLIS || now >= pool.expiry - MARGIN_MILLIS - 250;
                if (pool.exchanging || pool.entry == null || pool.debit == null || !(all || idle)) {
                    continue;
                }
                used = pool.handed;
                returned = pool.unused;
                pool.unused = 0;
                pool.grown = 0;
                zero = pool.debit.withAmounts(Map.of(pool.limit.name(), 0L));
                pool.exchanging = true;
            }
            BucketWrites.Exchanged result = null;
            long started = System.nanoTime();
            try {
                result = writes.exchange(zero, pool.limit, process, pool.entry, pool.entryAmount, used, returned, 0,
                        now + HOLD_MILLIS, now);
            } catch (RuntimeException e) {
                log.debug("returning reserved tokens of {} failed: {}", pool.debit.key(), e.toString());
            } finally {
                settle(pool, result, 0, used, returned, 0, now, started);
            }
        }
    }

    private synchronized void startSweeper() {
        if (sweeper != null || closed) {
            return;
        }
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "zae-limiter-reservations");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                sweep(false);
            } catch (RuntimeException e) {
                log.debug("reservation sweep failed: {}", e.toString());
            }
        }, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Gives every pool's tokens back and stops the background returns. */
    void close() {
        stopSweeper();
        sweep(true);
    }

    private void stopSweeper() {
        ScheduledExecutorService running;
        synchronized (this) {
            closed = true;
            running = sweeper;
        }
        if (running != null) {
            stop(running);
        }
    }

    /**
     * Stops {@code executor} once the tasks it runs have finished, for at most {@link #CLOSE_WAIT_MILLIS}: a write in
     * flight is not interrupted (an interrupted request is aborted, its outcome unknown) unless the store hangs.
     */
    static void stop(ExecutorService executor) {
        executor.shutdown();
        try {
            if (executor.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
    }

    /**
     * Stops the background returns and forgets every pool without giving anything back, once the writes in flight
     * have landed (a process dying at a known point).
     */
    void halt() {
        stopSweeper();
        for (Pool pool : pools.values()) {
            synchronized (pool) {
                awaitExchange(pool);
            }
        }
        pools.clear();
    }

    /**
     * Waits for the pool's write in flight (at most {@link #CLOSE_WAIT_MILLIS}: a slow store must not keep what it
     * holds from being given back); the caller holds the pool's monitor.
     */
    private static void awaitExchange(Pool pool) {
        long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        while (pool.exchanging && System.nanoTime() < waitUntil) {
            try {
                pool.wait(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** How many pools this process keeps. */
    int pools() {
        return pools.size();
    }

    /** Forgets the pools of a deleted bucket. */
    void forget(BucketKey key) {
        pools.keySet().removeIf(k -> k.bucket().equals(key));
    }
}
