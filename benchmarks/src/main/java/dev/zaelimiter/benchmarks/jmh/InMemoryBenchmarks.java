package dev.zaelimiter.benchmarks.jmh;

import dev.zaelimiter.Attempt;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Our in-memory store, as an application calls it: {@code acquire} then {@code close}. Every limit is large enough
 * never to refuse, except in {@link #refused}, whose bucket is empty for an hour.
 */
public class InMemoryBenchmarks {

    /** Entities of the many-keys benchmarks; bucket4j's map of buckets uses the same. */
    static final int KEYS = 10_000;

    static final Map<String, Long> ONE = Map.of("rps", 1L);
    static final Map<String, Long> GATEWAY = Map.of("rpm", 1L, "tpm", 500L);
    static final Map<String, Long> ONE_PER_HOUR = Map.of("rph", 1L);

    /** One limiter shared by every thread of a benchmark, with its limits set as resource defaults. */
    @State(Scope.Benchmark)
    public static class Limiter {

        RateLimiter limiter;
        String[] keys;

        @Setup
        public void setUp() {
            limiter = RateLimiter.builder().build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", Peers.HUGE)));
            limiter.admin().setResourceDefaults("gpt", List.of(Limit.perMinute("rpm", Peers.HUGE),
                    Limit.perMinute("tpm", Peers.HUGE * 1_000_000), Limit.perDay("rpd", Peers.HUGE)));
            limiter.admin().setResourceDefaults("exhausted", List.of(Limit.perHour("rph", 1)));
            limiter.acquire("user-1", "exhausted", ONE_PER_HOUR).close();
            keys = keys();
            for (String key : keys) {
                limiter.acquire(key, "api", ONE).close();
                limiter.acquire(key, "gpt", GATEWAY).close();
            }
        }
    }

    static String[] keys() {
        String[] keys = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = "user-" + i;
        }
        return keys;
    }

    /** One limit, one hot key. */
    @Benchmark
    public Lease oneLimitHotKey(Limiter state) {
        Lease lease = state.limiter.acquire("user-1", "api", ONE);
        lease.close();
        return lease;
    }

    /**
     * An LLM gateway call: requests per minute, tokens per minute (an estimate of 500, corrected to 620 after the
     * call) and requests per day.
     */
    @Benchmark
    public Lease gatewayThreeLimits(Limiter state) {
        Lease lease = state.limiter.acquire("user-1", "gpt", GATEWAY);
        lease.adjust("tpm", 120);
        lease.close();
        return lease;
    }

    /** The gateway call on a random one of 10,000 keys per call. */
    @Benchmark
    public Lease gatewayTenThousandKeys(Limiter state) {
        String key = state.keys[ThreadLocalRandom.current().nextInt(KEYS)];
        Lease lease = state.limiter.acquire(key, "gpt", GATEWAY);
        lease.adjust("tpm", 120);
        lease.close();
        return lease;
    }

    /** One limit, a random one of 10,000 keys per call. */
    @Benchmark
    public Lease oneLimitTenThousandKeys(Limiter state) {
        String key = state.keys[ThreadLocalRandom.current().nextInt(KEYS)];
        Lease lease = state.limiter.acquire(key, "api", ONE);
        lease.close();
        return lease;
    }

    /** A call its only limit refuses, by {@code acquire}: the refusal raised and caught. */
    @Benchmark
    public Object refused(Limiter state) {
        try {
            return state.limiter.acquire("user-1", "exhausted", ONE_PER_HOUR);
        } catch (RateLimitExceededException e) {
            return e;
        }
    }

    /** The same refusal by {@code tryAcquire}: answered, not raised. */
    @Benchmark
    public Object refusedAttempt(Limiter state) {
        Attempt attempt = state.limiter.tryAcquire("user-1", "exhausted", ONE_PER_HOUR);
        if (attempt.admitted()) {
            throw new IllegalStateException("the exhausted bucket admitted a call");
        }
        return attempt;
    }
}
