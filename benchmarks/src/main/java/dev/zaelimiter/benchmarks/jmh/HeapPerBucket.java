package dev.zaelimiter.benchmarks.jmh;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Retained heap per one-limit bucket: the heap in use after a full collection, with {@code count} buckets held and
 * without, divided by {@code count}. The entity ids are created before the first measurement, so they are not
 * counted; each bucket has taken one token of a daily limit, so none is full and none is evicted. Run in a JVM of
 * its own ({@link JmhSuite} starts one), so that nothing else holds heap.
 */
public final class HeapPerBucket {

    private HeapPerBucket() {
    }

    /**
     * Bytes per bucket: ours as built by default (with the usage history, which keeps the counters of the current
     * hour of every bucket used since the last flush), ours without usage history, then bucket4j's in a
     * {@code ConcurrentHashMap}.
     */
    record Figures(double oursBytes, double oursWithoutUsageBytes, double bucket4jBytes) {
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Figures figures = measure(count);
        System.out.printf("ours %.1f%noursWithoutUsage %.1f%nbucket4j %.1f%n", figures.oursBytes(),
                figures.oursWithoutUsageBytes(), figures.bucket4jBytes());
    }

    static Figures measure(int count) {
        String[] ids = new String[count];
        for (int i = 0; i < count; i++) {
            ids[i] = "user-" + i;
        }
        warmUp(Arrays.copyOf(ids, Math.min(count, 1000)));
        double ours = ours(RateLimiter.builder().usageFlushInterval(Duration.ZERO).build(), ids);
        double oursWithoutUsage = ours(RateLimiter.builder().noUsageHistory().build(), ids);

        double theirs = bucket4j(ids);
        reach(ids);
        return new Figures(ours, oursWithoutUsage, theirs);
    }

    /**
     * Runs each measurement once on a few ids, so that what the first use of a class leaves on the heap for good
     * (static state, caches of the JDK and of the libraries) is not counted as the buckets'.
     */
    private static void warmUp(String[] ids) {
        ours(RateLimiter.builder().usageFlushInterval(Duration.ZERO).build(), ids);
        ours(RateLimiter.builder().noUsageHistory().build(), ids);
        bucket4j(ids);
    }

    /** Bytes per bucket held by bucket4j's buckets in a map, after one call per id. */
    private static double bucket4j(String[] ids) {
        long before = usedAfterGc();
        ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
        for (String id : ids) {
            buckets.computeIfAbsent(id, k -> Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(1000).refillGreedy(1000, Duration.ofDays(1)).build())
                    .build()).tryConsume(1);
        }
        long theirs = usedAfterGc() - before;
        reach(buckets);
        return (double) theirs / ids.length;
    }

    /** Bytes per bucket held by {@code limiter} after one call per id, the limiter closed afterwards. */
    private static double ours(RateLimiter limiter, String[] ids) {
        long before = usedAfterGc();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perDay("rpd", 1000)));
        Map<String, Long> one = Map.of("rpd", 1L);
        for (String id : ids) {
            limiter.acquire(id, "api", one).close();
        }
        long used = usedAfterGc() - before;
        limiter.close();
        reach(limiter);
        return (double) used / ids.length;
    }

    private static volatile Object sink;

    /** Keeps {@code o} reachable up to here. */
    private static void reach(Object o) {
        sink = o;
        sink = null;
    }

    private static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
