package dev.zaelimiter.store.memory;

import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.store.UsagePeriod;
import dev.zaelimiter.store.UsageStore;
import dev.zaelimiter.store.UsageWrite;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Usage history in the heap, bounded: at most {@code maxPeriods} periods (a bucket's hour or day) of each
 * granularity; beyond, the oldest periods are dropped first. Guarded by its own monitor (only flushes and reads use
 * it, never a decision).
 */
final class MemoryUsage implements UsageStore {

    private final int maxPeriods;
    private final Map<UsageGranularity, TreeMap<Long, Map<BucketKey, Period>>> periods =
            new EnumMap<>(UsageGranularity.class);
    private final Map<UsageGranularity, Integer> sizes = new EnumMap<>(UsageGranularity.class);

    /** One bucket's counters in one period, and the last sequence of each writer applied to it. */
    private static final class Period {
        final Map<String, UsageCounts> limits = new HashMap<>();
        final Map<String, Long> writers = new HashMap<>();
    }

    MemoryUsage(int maxPeriods) {
        this.maxPeriods = maxPeriods;
        for (UsageGranularity granularity : UsageGranularity.values()) {
            periods.put(granularity, new TreeMap<>());
            sizes.put(granularity, 0);
        }
    }

    @Override
    public synchronized boolean add(UsageWrite write) {
        UsagePeriod usage = write.period();
        TreeMap<Long, Map<BucketKey, Period>> byStart = periods.get(usage.granularity());
        Map<BucketKey, Period> atStart = byStart.computeIfAbsent(usage.startMillis(), s -> new HashMap<>());
        Period period = atStart.get(usage.key());
        if (period == null) {
            period = new Period();
            atStart.put(usage.key(), period);
            sizes.merge(usage.granularity(), 1, Integer::sum);
        }
        Long last = period.writers.get(write.writerId());
        if (last != null && last >= write.sequence()) {
            return false;
        }
        period.writers.put(write.writerId(), write.sequence());
        Period target = period;
        usage.limits().forEach((name, counts) -> target.limits.merge(name, counts, UsageCounts::plus));
        while (sizes.get(usage.granularity()) > maxPeriods) {
            Map.Entry<Long, Map<BucketKey, Period>> oldest = byStart.pollFirstEntry();
            sizes.merge(usage.granularity(), -oldest.getValue().size(), Integer::sum);
        }
        return true;
    }

    @Override
    public synchronized List<UsagePeriod> entityUsage(String entityId, String resource, UsageGranularity granularity,
            long fromMillis, long toMillis) {
        return collect(granularity, fromMillis, toMillis,
                key -> key.entityId().equals(entityId) && (resource == null || key.resource().equals(resource)));
    }

    @Override
    public synchronized List<UsagePeriod> resourceUsage(String resource, UsageGranularity granularity,
            long fromMillis, long toMillis) {
        return collect(granularity, fromMillis, toMillis, key -> key.resource().equals(resource));
    }

    private List<UsagePeriod> collect(UsageGranularity granularity, long fromMillis, long toMillis,
            java.util.function.Predicate<BucketKey> wanted) {
        List<UsagePeriod> found = new ArrayList<>();
        periods.get(granularity).subMap(fromMillis, true, toMillis, false).forEach((start, atStart) ->
                atStart.forEach((key, period) -> {
                    if (wanted.test(key)) {
                        found.add(new UsagePeriod(key, granularity, start, period.limits));
                    }
                }));
        return found;
    }
}
