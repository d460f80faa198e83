package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Configuration items cached per process for {@code ttl} milliseconds. A call that needs several items loads the
 * missing ones in one batch; concurrent calls that need the same item wait for the one load in flight instead of
 * starting their own. Local writes invalidate at once. Freshness is measured on the latest instant the cache has
 * seen, so that a clock that steps back does not make an entry fresh again: an item read {@code ttl} ago by the
 * clock's own latest reading is reread, whatever the clock says now.
 */
final class ConfigCache {

    /** A loaded item ({@code null} when absent) and when it stops being fresh. */
    private record Entry(Map<String, AttributeValue> item, long expiresAt) {
    }

    /** Every this many calls, expired entries are dropped, so that the cache holds only what was used lately. */
    private static final long SWEEP_EVERY = 4096;

    private final ConcurrentHashMap<Map<String, AttributeValue>, CompletableFuture<Entry>> entries =
            new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong calls = new java.util.concurrent.atomic.AtomicLong();
    /** The latest instant the clock showed to this cache. */
    private final java.util.concurrent.atomic.AtomicLong latest = new java.util.concurrent.atomic.AtomicLong(
            Long.MIN_VALUE);
    private final Clock clock;
    private final long ttlMillis;
    private final Function<List<Map<String, AttributeValue>>, Map<Map<String, AttributeValue>,
            Map<String, AttributeValue>>> loader;

    /**
     * @param loader reads the given keys in one batch and returns the items found, keyed by their key
     */
    ConfigCache(Clock clock, long ttlMillis, Function<List<Map<String, AttributeValue>>,
            Map<Map<String, AttributeValue>, Map<String, AttributeValue>>> loader) {
        this.clock = clock;
        this.ttlMillis = ttlMillis;
        this.loader = loader;
    }

    /** The items at {@code keys} ({@code null} where absent), in the same order. */
    List<Map<String, AttributeValue>> get(List<Map<String, AttributeValue>> keys) {
        long now = latest.accumulateAndGet(clock.millis(), Math::max);
        if ((calls.incrementAndGet() & (SWEEP_EVERY - 1)) == 0) {
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
            found = loader.apply(new ArrayList<>(mine.keySet()));
        } catch (RuntimeException e) {
            mine.forEach((key, future) -> {
                entries.remove(key, future);
                future.completeExceptionally(e);
            });
            throw e;
        }
        long expiresAt = now + ttlMillis;
        mine.forEach((key, future) -> future.complete(new Entry(found.get(key), expiresAt)));
    }

    private boolean isStale(CompletableFuture<Entry> future, long now) {
        return future.isDone() && !future.isCompletedExceptionally() && future.join().expiresAt() <= now;
    }

    /** Records the clock's reading now as seen, so that no later, earlier reading makes an entry fresh again. */
    void observe() {
        latest.accumulateAndGet(clock.millis(), Math::max);
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

    static Map<Map<String, AttributeValue>, Map<String, AttributeValue>> byKey(
            List<Map<String, AttributeValue>> items) {
        Map<Map<String, AttributeValue>, Map<String, AttributeValue>> result = new HashMap<>();
        for (Map<String, AttributeValue> item : items) {
            result.put(Keys.key(item.get(Keys.PK).s(), item.get(Keys.SK).s()), item);
        }
        return result;
    }
}
