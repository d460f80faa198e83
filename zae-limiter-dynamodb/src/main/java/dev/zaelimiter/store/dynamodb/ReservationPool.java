package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One limit's pool of tokens held by this process ({@link LocalReservations}): what it holds and has handed out,
 * the demand it sees and the batch it asks for, and what an exchange with the bucket did to it. Guarded by its own
 * monitor.
 */
final class ReservationPool {

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

    /** The longest close waits for a pool's write in flight before giving its tokens back. */
    static final long CLOSE_WAIT_MILLIS = 30_000;

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

    /**
     * Takes what an exchange did into the pool, and wakes the calls waiting for it; a write that got less than the
     * call's {@code amount} and the {@code wanted} batch leaves the pool refusing locally until the bucket refills.
     */
    void settle(BucketWrites.Exchanged result, long amount, long used, long returned, long wanted, long now,
            long startedNanos) {
        synchronized (this) {
            long took = System.nanoTime() - startedNanos;
            writeNanos = writeNanos == 0 ? took : (writeNanos * 3 + took) / 4;
            exchanging = false;
            notifyAll();
            stale = stale && result != null && !result.admitted() && !result.lost();
            if (result == null) {
                // the write's outcome is unknown: nothing held before may be handed out, and the next write reads
                entry = BucketWrites.UNKNOWN_ENTRY;
                unused = 0;
                handed = 0;
                return;
            }
            state = result.state();
            if (result.lost()) {
                unused = 0;
                handed = 0;
            }
            if (!result.admitted()) {
                if (!result.lost()) {
                    unused += returned;
                }
                shortSince = now;
                shortUntil = now + refillWait(limit, result.state(), amount + wanted);
                entry = result.entry();
                entryAmount = result.entryAmount();
                if (result.lost()) {
                    handed = result.entryAmount();
                }
                if (result.entry() == null) {
                    expiry = 0;
                }
                return;
            }
            if (!result.lost()) {
                handed -= used;
            }
            unused += result.taken();
            entry = result.entry();
            entryAmount = result.entryAmount();
            expiry = result.entry() == null ? 0 : now + HOLD_MILLIS;
            if (result.taken() < wanted) {
                shortSince = now;
                shortUntil = now + refillWait(limit, result.state(), wanted);
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
     * can still hand out without asking (never more than the bucket has: a debt shows as it is);
     * {@code known} is the bucket as this process last learned it (its other limits), {@code null} when unknown.
     */
    BucketState view(BucketState known, long now) {
        BucketState base = known;
        if (base == null) {
            base = state != null ? state : BucketState.fresh(debit.limits(), now);
        }
        Map<String, LimitState> limits = new HashMap<>(base.limits());
        LimitState s = limits.get(limit.name());
        long balance = usable(now) ? unused : 0;
        if (s != null && s.balanceMilli() < balance && s.balanceMilli() < 0) {
            balance = s.balanceMilli();                   // a bucket in debt shows its debt, and waits it out
        }
        limits.put(limit.name(), new LimitState(balance, s == null ? 0 : s.consumedMilli()));
        return new BucketState(Math.max(now, base.lastRefillMillis()), limits);
    }

    /**
     * Waits for the pool's write in flight (at most {@link #CLOSE_WAIT_MILLIS}: a slow store must not keep what it
     * holds from being given back); the caller holds its monitor.
     */
    void awaitExchange() {
        long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        while (exchanging && System.nanoTime() < waitUntil) {
            try {
                wait(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
