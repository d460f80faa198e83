package dev.zaelimiter.store.memory;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.UsageCounts;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * The buckets of an in-memory store, one {@link Cell} per key, and how calls lock them: each cell has its own
 * monitor, so calls on different buckets never wait for each other, and a call that spans several locks them in key
 * order. A cell found {@code retired} under its monitor was evicted, deleted or replaced by a counting copy: the
 * call looks the key up again.
 */
final class CellTable {

    private final ConcurrentHashMap<BucketKey, Cell> cells = new ConcurrentHashMap<>();
    /** Usage counts of buckets that changed hour or limit, or went, since the last {@link #drainUsage}. */
    private final Queue<PendingUsage> pendingUsage = new ConcurrentLinkedQueue<>();
    /** Whether a decision asked to count usage: new buckets are then made to count. */
    private volatile boolean countingUsage;

    /** The cell of {@code key}, made if missing (a counting one once a decision asked to count usage). */
    Cell cell(BucketKey key) {
        Cell cell = cells.get(key);
        return cell != null ? cell
                : cells.computeIfAbsent(key, k -> countingUsage ? new CountingCell() : new Cell());
    }

    /** From now on, new cells count the usage of the decisions made on them. */
    void countUsage() {
        if (!countingUsage) {
            countingUsage = true;
        }
    }

    /** Replaces {@code cell}, locked by the caller, with a counting copy, and retires it. */
    void makeCounting(BucketKey key, Cell cell) {
        CountingCell counting = new CountingCell(cell);
        cell.retired = true;
        cells.replace(key, cell, counting);
    }

    /** Counts one in-place decision on {@code cell}, locked by the caller ({@link CountingCell#count}). */
    void count(CountingCell cell, BucketKey key, long now, Limit limit, boolean admitted, long amountMilli,
            boolean countOnly) {
        cell.count(key, now, limit.name(), admitted, amountMilli, countOnly,
                admitted && limit.isSoft() && cell.balanceOf(limit) < 0, pendingUsage);
    }

    /** Runs {@code action} on the cell of {@code key}, made if missing, holding its monitor. */
    <T> T withBucket(BucketKey key, Function<Cell, T> action) {
        while (true) {
            Cell cell = cell(key);
            synchronized (cell) {
                if (!cell.retired) {
                    return action.apply(cell);
                }
            }
        }
    }

    /** What runs holding the monitors of several cells. */
    interface Action<T> {
        T run(Cell[] cells);
    }

    /** Runs {@code action} holding the monitors of every bucket of {@code debits}, made if missing. */
    <T> T withBuckets(List<BucketDebit> debits, Action<T> action) {
        while (true) {
            Cell[] locked = new Cell[debits.size()];
            for (int i = 0; i < locked.length; i++) {
                locked[i] = cell(debits.get(i).key());
            }
            Integer[] order = new Integer[locked.length];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            if (order.length > 1) {
                Arrays.sort(order, Comparator.comparing(i -> debits.get(i).key()));
            }
            Holder<T> holder = new Holder<>();
            if (lockInOrder(locked, order, 0, action, holder)) {
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

    /**
     * The bucket of {@code debit} in {@code cell}, locked by the caller, refilled to {@code now} under the debit's
     * limits: new when never written or when its life ended under the limits it is kept under.
     */
    static BucketState refilled(Cell cell, BucketDebit debit, long now) {
        List<Limit> limits = debit.limits();
        cell.endIfOver(debit.kept(), now);
        BucketState stored = cell.state(limits);
        return stored == null ? BucketState.fresh(limits, now) : stored.refilled(limits, now);
    }

    /** {@link #refilled(Cell, BucketDebit, long)} of each of {@code cells}, locked by the caller. */
    static BucketState[] refilled(Cell[] cells, List<BucketDebit> debits, long now) {
        BucketState[] states = new BucketState[cells.length];
        for (int i = 0; i < cells.length; i++) {
            states[i] = refilled(cells[i], debits.get(i), now);
        }
        return states;
    }

    /**
     * The state of the bucket {@code key} as stored, or {@code null} when the table holds none. A bucket whose life
     * ended by {@code now} under {@code kept} (the limits it is kept under) counts as none.
     */
    BucketState stored(BucketKey key, List<Limit> kept, long now) {
        while (true) {
            Cell cell = cells.get(key);
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

    /** Removes the bucket {@code key}, its usage counts kept for the next {@link #drainUsage}. */
    void delete(BucketKey key) {
        while (true) {
            Cell cell = cells.get(key);
            if (cell == null) {
                return;
            }
            synchronized (cell) {
                if (!cell.retired) {
                    remove(key, cell);
                    return;
                }
            }
        }
    }

    /** Removes every bucket of {@code entityId}. */
    void deleteOf(String entityId) {
        for (BucketKey key : cells.keySet()) {
            if (key.entityId().equals(entityId)) {
                delete(key);
            }
        }
    }

    /** Removes {@code cell}, locked by the caller and not retired, from the table. */
    void remove(BucketKey key, Cell cell) {
        cell.retire(pendingUsage, key);
        cells.remove(key, cell);
    }

    /** Every bucket, for a sweep: a cell is read under its monitor, and may be retired by then. */
    Iterable<Map.Entry<BucketKey, Cell>> entries() {
        return cells.entrySet();
    }

    int size() {
        return cells.size();
    }

    boolean holds(BucketKey key) {
        return cells.containsKey(key);
    }

    /** {@link InPlaceBuckets#drainUsage}: the counts in the cells, then those set aside. */
    void drainUsage(InPlaceBuckets.UsageSink sink) {
        for (var entry : cells.entrySet()) {
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
}
