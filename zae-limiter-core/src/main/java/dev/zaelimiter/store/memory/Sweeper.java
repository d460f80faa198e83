package dev.zaelimiter.store.memory;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.resolution.ConfigResolver;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketLife;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The eviction of an in-memory store's ended buckets ({@link BucketLife}): on demand, and on its own every so many
 * writes. Only ended buckets go, so that eviction changes no answer.
 */
final class Sweeper {

    private static final long MIN_SWEEP_INTERVAL = 1 << 16;
    /** One write in this many adds that many to the write count, so that threads rarely touch the shared counter. */
    private static final int WRITE_SAMPLE = 64;

    private final CellTable cells;
    private final MemoryConfig config;
    /** When the latest {@link #sweep} ran (by the clock of the write that ran it); written by the sweeping thread. */
    private volatile long previousSweepAt = Long.MIN_VALUE;
    private final AtomicLong writesSinceSweep = new AtomicLong();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile long sweepInterval = MIN_SWEEP_INTERVAL;

    Sweeper(CellTable cells, MemoryConfig config) {
        this.cells = cells;
        this.config = config;
    }

    /** Counts a write at {@code now}, and sweeps when enough were counted since the previous sweep. */
    void afterWrite(long now) {
        if (ThreadLocalRandom.current().nextInt(WRITE_SAMPLE) != 0) {
            return;
        }
        long writes = writesSinceSweep.addAndGet(WRITE_SAMPLE);
        if (writes >= sweepInterval && sweeping.compareAndSet(false, true)) {
            try {
                writesSinceSweep.set(0);
                sweep(now);
                // a sweep costs one check per bucket: spacing sweeps by the survivors keeps that under one per write
                sweepInterval = Math.max(MIN_SWEEP_INTERVAL, cells.size());
            } finally {
                sweeping.set(false);
            }
        }
    }

    /** {@link dev.zaelimiter.store.memory.InMemoryStore#sweep}. */
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
    int evictIdle(long now, boolean onlyIdle, long writtenBefore) {
        int evicted = 0;
        for (var entry : cells.entries()) {
            Cell cell = entry.getValue();
            synchronized (cell) {
                if (cell.retired || onlyIdle && cell.states != null && cell.lastRefillMillis >= writtenBefore) {
                    continue;
                }
                if (cell.states == null || cell.ended(cell.limits, now) && endedInForce(entry.getKey(), cell, now)) {
                    cells.remove(entry.getKey(), cell);
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
        List<Limit> inForce = ConfigResolver.resolve(config.loadConfig(key.entityId(), key.resource()), null)
                .limits();
        return inForce.isEmpty() || cell.ended(inForce, now);
    }
}
