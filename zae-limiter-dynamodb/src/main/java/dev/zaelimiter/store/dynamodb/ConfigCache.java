package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Configuration items cached per process for {@code ttl} milliseconds. A call that needs several items loads the
 * missing ones in one batch; concurrent calls that need the same item wait for the one load in flight instead of
 * starting their own. A write made through this process invalidates its item at once. An entry is fresh from the reading it was loaded at until
 * {@code ttl} later. A clock that steps back makes no entry fresh again: an entry loaded after the reading shown now
 * is stale, and when the clock shows an earlier reading than the latest it showed, the entries stale at that latest
 * reading are dropped. The latest reading then comes down with the clock, so that a forward step taken back
 * leaves later entries their whole {@code ttl}.
 */
final class ConfigCache {

    /** A loaded item ({@code null} when absent) and the clock's reading when it was loaded. */
    private record Entry(Map<String, AttributeValue> item, long loadedAt) {
    }

    /** Every this many reads, expired entries are dropped, so that the cache holds only what was used lately. */
    private static final long SWEEP_EVERY = 4096;
    /**
     * How far behind the latest reading a reading must be to count as the clock stepping back: closer readings are
     * threads that read the clock in one order and got here in another, and scanning the cache for each would
     * cost every call on a busy process.
     */
    static final long STEP_BACK_MILLIS = 1_000;

    private final ConcurrentHashMap<Map<String, AttributeValue>, CompletableFuture<Entry>> entries =
            new ConcurrentHashMap<>();
    private final AtomicLong reads = new AtomicLong();
    /** The latest reading the clock showed to this cache since it last stepped back. */
    private final AtomicLong latest = new AtomicLong(Long.MIN_VALUE);
    private final Clock clock;
    private final long ttlMillis;
    private final StoreCalls calls;

    /** @param calls reads the missing items, in one batch per call */
    ConfigCache(Clock clock, long ttlMillis, StoreCalls calls) {
        this.clock = clock;
        this.ttlMillis = ttlMillis;
        this.calls = calls;
    }

    /** The items at {@code keys} ({@code null} where absent), in the same order. */
    List<Map<String, AttributeValue>> get(List<Map<String, AttributeValue>> keys) {
        long now = observe();
        if ((reads.incrementAndGet() & (SWEEP_EVERY - 1)) == 0) {
            entries.values().removeIf(future -> isStale(future, now));
        }
        Map<Map<String, AttributeValue>, CompletableFuture<Entry>> mine = new LinkedHashMap<>();
        List<CompletableFuture<Entry>> futures = new ArrayList<>(keys.size());
        for (Map<String, AttributeValue> key : keys) {
            CompletableFuture<Entry> future = entries.get(key);
            if (future == null || isStale(future, now)) {
                CompletableFuture<Entry> fresh = new CompletableFuture<>();
                boolean claimed = future == null ? entries.putIfAbsent(key, fresh) == null
                        : entries.replace(key, future, fresh);
                if (claimed) {
                    mine.put(key, fresh);
                }
                future = entries.getOrDefault(key, fresh);
            }
            futures.add(future);
        }
        if (!mine.isEmpty()) {
            load(mine, now);
        }
        List<Map<String, AttributeValue>> items = new ArrayList<>(keys.size());
        for (CompletableFuture<Entry> future : futures) {
            try {
                items.add(future.join().item());
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw e;
            }
        }
        return items;
    }

    private void load(Map<Map<String, AttributeValue>, CompletableFuture<Entry>> mine, long now) {
        Map<Map<String, AttributeValue>, Map<String, AttributeValue>> found;
        try {
            found = calls.batchGet(new ArrayList<>(mine.keySet()));
        } catch (RuntimeException e) {
            mine.forEach((key, future) -> {
                entries.remove(key, future);
                future.completeExceptionally(e);
            });
            throw e;
        }
        mine.forEach((key, future) -> future.complete(new Entry(found.get(key), now)));
    }

    private boolean isStale(CompletableFuture<Entry> future, long now) {
        if (!future.isDone() || future.isCompletedExceptionally()) {
            return false;
        }
        long loadedAt = future.join().loadedAt();
        return now < loadedAt - STEP_BACK_MILLIS || now - loadedAt >= ttlMillis;
    }

    /**
     * The instant the cache counts at: the clock's reading now, or the latest reading seen when this one is less
     * than {@link #STEP_BACK_MILLIS} behind it (another thread read later). A reading further behind is the clock
     * stepping back: the entries stale at the latest reading are dropped first, so that the step makes none fresh
     * again, and the latest reading comes down to this one.
     */
    long observe() {
        long now = clock.millis();
        long seen = latest.get();
        while (now > seen && !latest.compareAndSet(seen, now)) {
            seen = latest.get();
        }
        if (now >= seen) {
            return now;
        }
        if (now >= seen - STEP_BACK_MILLIS) {
            return seen;                               // an earlier reading of another thread: count at the latest
        }
        long stepFrom = seen;
        entries.values().removeIf(future -> isStale(future, stepFrom));
        latest.accumulateAndGet(now, (current, reading) -> current == stepFrom ? reading : current);
        return now;
    }

    void invalidate(Map<String, AttributeValue> key) {
        entries.remove(key);
    }

    /** How many items are cached now. */
    int size() {
        return entries.size();
    }

    void clear() {
        entries.clear();
    }
}
