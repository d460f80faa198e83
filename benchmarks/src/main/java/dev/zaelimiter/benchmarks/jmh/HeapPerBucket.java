package dev.zaelimiter.benchmarks.jmh;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;

import java.lang.management.ManagementFactory;
import java.time.Duration;
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

    /** Bytes per bucket: ours, then bucket4j's in a {@code ConcurrentHashMap}. */
    record Figures(double oursBytes, double bucket4jBytes) {
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Figures figures = measure(count);
        System.out.printf("ours %.1f%nbucket4j %.1f%n", figures.oursBytes(), figures.bucket4jBytes());
    }

    static Figures measure(int count) {
        String[] ids = new String[count];
        for (int i = 0; i < count; i++) {
            ids[i] = "user-" + i;
        }
        long before = usedAfterGc();
        RateLimiter limiter = RateLimiter.builder().build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perDay("rpd", 1000)));
        Map<String, Long> one = Map.of("rpd", 1L);
        for (String id : ids) {
            limiter.acquire(id, "api", one).close();
        }
        long ours = usedAfterGc() - before;
        reach(limiter);
        limiter = null;

        before = usedAfterGc();
        ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
        for (String id : ids) {
            buckets.computeIfAbsent(id, k -> Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(1000).refillGreedy(1000, Duration.ofDays(1)).build())
                    .build()).tryConsume(1);
        }
        long theirs = usedAfterGc() - before;
        reach(buckets);
        reach(ids);
        return new Figures((double) ours / count, (double) theirs / count);
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
