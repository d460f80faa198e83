package dev.zaelimiter.benchmarks.jmh;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** The local limiters we compare with, on the same work as {@link InMemoryBenchmarks}. */
public class Peers {

    /** A rate no benchmark exhausts. */
    static final long HUGE = 1_000_000_000L;

    @State(Scope.Benchmark)
    public static class Buckets {

        Bucket hot;
        Bucket exhausted;
        ConcurrentHashMap<String, Bucket> byKey;
        Bucket[] gateway;
        ConcurrentHashMap<String, Bucket[]> gatewayByKey;
        String[] keys;
        RateLimiter resilience;

        @Setup
        public void setUp() {
            hot = huge();
            exhausted = Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(1).refillGreedy(1, Duration.ofHours(1)).build())
                    .build();
            exhausted.tryConsume(1);
            keys = InMemoryBenchmarks.keys();
            byKey = new ConcurrentHashMap<>();
            for (String key : keys) {
                byKey.computeIfAbsent(key, k -> huge()).tryConsume(1);
            }
            gateway = gateway();
            gatewayByKey = new ConcurrentHashMap<>();
            for (String key : keys) {
                gatewayCall(gatewayByKey.computeIfAbsent(key, k -> gateway()));
            }
            resilience = RateLimiter.of("hot", RateLimiterConfig.custom()
                    .limitForPeriod(Integer.MAX_VALUE)
                    .limitRefreshPeriod(Duration.ofSeconds(1))
                    .timeoutDuration(Duration.ZERO)
                    .build());
        }

        /**
         * The gateway's three limits as three buckets: requests per minute, tokens per minute, requests per day. The
         * tokens bucket is as large as ours but refills over 12 days: bucket4j refills at most a token per
         * nanosecond, and no benchmark runs long enough to empty it.
         */
        static Bucket[] gateway() {
            return new Bucket[] {
                    bucket(HUGE, Duration.ofMinutes(1)), bucket(HUGE * 1_000_000, Duration.ofDays(12)),
                    bucket(HUGE, Duration.ofDays(1))};
        }

        static Bucket bucket(long capacity, Duration period) {
            return Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(capacity).refillGreedy(capacity, period).build())
                    .build();
        }

        static Bucket huge() {
            return Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(HUGE).refillGreedy(HUGE, Duration.ofSeconds(1)).build())
                    .build();
        }
    }

    /** bucket4j, one bucket. */
    @Benchmark
    public boolean bucket4jHotKey(Buckets state) {
        return state.hot.tryConsume(1);
    }

    /** bucket4j, the usual map of buckets, a random one of 10,000 keys per call. */
    @Benchmark
    public boolean bucket4jTenThousandKeys(Buckets state) {
        String key = state.keys[ThreadLocalRandom.current().nextInt(InMemoryBenchmarks.KEYS)];
        return state.byKey.computeIfAbsent(key, k -> Buckets.huge()).tryConsume(1);
    }

    /** bucket4j, an empty bucket: {@code tryConsume} answers false. */
    @Benchmark
    public boolean bucket4jRefused(Buckets state) {
        return state.exhausted.tryConsume(1);
    }

    /**
     * {@link InMemoryBenchmarks#gatewayThreeLimits} done with three bucket4j buckets on one hot key: takes 1 request
     * per minute, 500 tokens per minute and 1 request per day, giving back what it took when a later bucket refuses,
     * then takes the adjustment of 120 tokens (into debt if need be, as our adjustment does).
     */
    @Benchmark
    public boolean bucket4jGatewayHotKey(Buckets state) {
        return gatewayCall(state.gateway);
    }

    /** The same on a random one of 10,000 keys, each with its three buckets in the usual map. */
    @Benchmark
    public boolean bucket4jGatewayTenThousandKeys(Buckets state) {
        String key = state.keys[ThreadLocalRandom.current().nextInt(InMemoryBenchmarks.KEYS)];
        return gatewayCall(state.gatewayByKey.computeIfAbsent(key, k -> Buckets.gateway()));
    }

    static boolean gatewayCall(Bucket[] buckets) {
        if (!buckets[0].tryConsume(1)) {
            return false;
        }
        if (!buckets[1].tryConsume(500)) {
            buckets[0].addTokens(1);
            return false;
        }
        if (!buckets[2].tryConsume(1)) {
            buckets[0].addTokens(1);
            buckets[1].addTokens(500);
            return false;
        }
        buckets[1].consumeIgnoringRateLimits(120);
        return true;
    }

    /** resilience4j's rate limiter (its default, atomic implementation). */
    @Benchmark
    public boolean resilience4jHotKey(Buckets state) {
        return state.resilience.acquirePermission();
    }
}
