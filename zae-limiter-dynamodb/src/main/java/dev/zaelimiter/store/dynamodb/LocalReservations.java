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
 * from a pool this process holds ({@link ReservationPool}), without a request to the table; when it runs short one
 * call writes for everyone (its own amount, the calls waiting behind it, and a batch sized to the demand this process
 * sees), and the others wait for that write instead of writing themselves; a pool running low tops itself up in the
 * background. Unused tokens go back to the bucket when the pool's hold nears its expiry, when the process stops
 * asking, and on close. See {@link Holds} for why totals stay exact.
 */
final class LocalReservations {

    private static final Logger log = LoggerFactory.getLogger(LocalReservations.class);

    /** A pool with no demand for this long gives its tokens back. */
    private static final long IDLE_MILLIS = 200;

    /** How often pools that went quiet or near their expiry give their tokens back. */
    private static final long SWEEP_MILLIS = 100;

    /** The longest a call waits for another call's write to its pool; then the store counts as unavailable. */
    private static final long WAIT_MILLIS = 2_000;

    private final String process = UUID.randomUUID().toString().substring(0, 13);
    private final BucketWrites writes;
    private final Clock clock;
    private final Executor executor;
    private final Map<PoolKey, ReservationPool> pools = new ConcurrentHashMap<>();
    private ScheduledExecutorService sweeper;
    /** Set once by {@link #close()}: from then on no call takes a batch, so nothing is held after the sweep. */
    private volatile boolean closed;

    private record PoolKey(BucketKey bucket, String limit) {
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
        ReservationPool pool = pools.get(new PoolKey(debit.key(), limit.name()));
        if (pool == null) {
            startSweeper();
            pool = pools.computeIfAbsent(new PoolKey(debit.key(), limit.name()), k -> new ReservationPool());
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
                    return new BucketWrites.Outcome(true, view(pool, now));
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
                return new BucketWrites.Outcome(false, refuses ? known : view(pool, now));
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
                    now + ReservationPool.HOLD_MILLIS, now);
            return new BucketWrites.Outcome(result.admitted(), result.state());
        } finally {
            pool.settle(result, amount, used, returned, wanted, now, started);
        }
    }

    /** What a call decided by {@code pool} reports ({@link ReservationPool#view}). */
    private BucketState view(ReservationPool pool, long now) {
        return pool.view(writes.estimate(pool.debit, now), now);  // the other limits as this process last wrote them
    }

    /** Asks for the next batch in the background when the pool runs low, so that calls need not wait for it. */
    private void prefetchIfLow(ReservationPool pool, long amount, long now) {
        long batch = pool.batch(amount, now);
        if (batch == 0 || closed || pool.exchanging || pool.isShort(now)
                || (pool.unused >= batch / 2 && now < pool.expiry - ReservationPool.HOLD_MILLIS / 2)) {
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
                        wanted, at + ReservationPool.HOLD_MILLIS, at);
            } catch (RuntimeException e) {
                log.debug("background reservation for {} failed: {}", pool.debit.key(), e.toString());
            } finally {
                pool.settle(result, 0, used, returned, wanted, at, started);
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
        for (Map.Entry<PoolKey, ReservationPool> mapped : List.copyOf(pools.entrySet())) {
            ReservationPool pool = mapped.getValue();
            long used;
            long returned;
            BucketDebit zero;
            synchronized (pool) {
                if (all) {
                    pool.awaitExchange();
                }
                if (pool.entry == null && !pool.exchanging && pool.waiting == 0 && pool.unused == 0
                        && pool.handed == 0 && now - pool.lastDemandAt >= IDLE_MILLIS) {
                    pool.evicted = pools.remove(mapped.getKey(), pool);
                    continue;
                }
                boolean idle = now - pool.lastDemandAt >= IDLE_MILLIS
                        || now >= pool.expiry - ReservationPool.MARGIN_MILLIS - 250;
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
                        now + ReservationPool.HOLD_MILLIS, now);
            } catch (RuntimeException e) {
                log.debug("returning reserved tokens of {} failed: {}", pool.debit.key(), e.toString());
            } finally {
                pool.settle(result, 0, used, returned, 0, now, started);
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
     * Stops {@code executor} once the tasks it runs have finished, for at most
     * {@link ReservationPool#CLOSE_WAIT_MILLIS}: a write in flight is not interrupted (an interrupted request is
     * aborted, its outcome unknown) unless the store hangs.
     */
    static void stop(ExecutorService executor) {
        executor.shutdown();
        try {
            if (executor.awaitTermination(ReservationPool.CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
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
        for (ReservationPool pool : pools.values()) {
            synchronized (pool) {
                pool.awaitExchange();
            }
        }
        pools.clear();
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
