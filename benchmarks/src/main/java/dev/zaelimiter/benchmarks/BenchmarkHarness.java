package dev.zaelimiter.benchmarks;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * Runs our acquire and the read-then-write baseline side by side on one DynamoDB endpoint: same table, one client
 * each (same settings, each with its own {@link RequestCounter}), in alternating time slices so that machine noise
 * hits both. Each scenario is a number of closed-loop threads over one hot key or many keys taken round-robin.
 */
final class BenchmarkHarness implements AutoCloseable {

    static final String TABLE = "zae-limiter-bench";
    static final String OPEN = "open";
    static final String TIGHT = "tight";
    /** Steady state: a limit so large that it never runs short, so every call is the fast path. */
    static final long OPEN_RATE_PER_MINUTE = 1_000_000_000L;

    /** What to run. {@code stampTtl} is the store's (the documented run keeps the default, 60 s). */
    record Settings(int[] threads, int manyKeys, long warmupMillis, long scenarioWarmupMillis, long sliceMillis,
            int rounds, long tightRatePerSecond, boolean tight, Duration stampTtl) {

        /** The documented run: about three minutes. */
        static Settings standard() {
            return new Settings(new int[] {1, 8}, 1000, 5000, 1000, 2500, 5, 100, true, Duration.ofSeconds(60));
        }
    }

    /** One row pair of the report. */
    record Scenario(String name, int threads, int keys, boolean tight) {
    }

    /** What one implementation did in one scenario, over all its measured slices. */
    static final class Side {
        final String implementation;
        final LatencyRecorder latencies = new LatencyRecorder();
        final Map<String, Long> requests = new TreeMap<>();
        long decisions;
        long admitted;
        long errors;
        long elapsedNanos;
        String firstError;

        Side(String implementation) {
            this.implementation = implementation;
        }

        long requestCount() {
            long total = 0;
            for (Map.Entry<String, Long> e : requests.entrySet()) {
                if (RequestCounter.isOperation(e.getKey())) {
                    total += e.getValue();
                }
            }
            return total;
        }

        double perDecision(long count) {
            return decisions == 0 ? 0 : (double) count / decisions;
        }

        double requestsPerDecision() {
            return perDecision(requestCount());
        }

        double conditionFailuresPerDecision() {
            return perDecision(requests.getOrDefault(RequestCounter.CONDITION_FAILED, 0L));
        }

        double throughput() {
            return elapsedNanos == 0 ? 0 : decisions * 1e9 / elapsedNanos;
        }

        double micros(double q) {
            return latencies.quantile(q) / 1000.0;
        }
    }

    /**
     * One scenario's figures. {@code spanMillis} is the wall time from before its first call (warm-up included) to
     * after its last, rounded up, in whichever of the two clocks ({@code currentTimeMillis}, {@code nanoTime}) gives
     * the longer one: each side's bucket can have admitted at most its capacity plus the refill over that span.
     */
    record Result(Scenario scenario, Side ours, Side baseline, long spanMillis) {
    }

    /** One decision on key {@code index}: whether it was admitted. */
    interface Decider {
        boolean decide(int index);
    }

    private final RequestCounter oursCounter = new RequestCounter();
    private final RequestCounter baselineCounter = new RequestCounter();
    private final DynamoDbClient oursClient;
    private final DynamoDbClient baselineClient;
    private final DynamoDbStore store;
    private final RateLimiter limiter;
    private final PrintStream progress;

    /** A harness whose store has the given {@code stampTtl} ({@link Settings#stampTtl()}). */
    BenchmarkHarness(Dynalite server, Duration stampTtl, PrintStream progress) {
        this.progress = progress;
        this.oursClient = server.client(oursCounter);
        this.baselineClient = server.client(baselineCounter);
        // a slow request on a loaded machine is measured, not failed: fault handling is FaultFigures' subject
        this.store = DynamoDbStore.builder().client(oursClient).table(TABLE).namespace("bench").stampTtl(stampTtl)
                .requestTimeout(Duration.ofSeconds(10)).build();
        store.createTableIfMissing();
        this.limiter = RateLimiter.builder().store(store).onUnavailable(Unavailable.BLOCK).build();
    }

    List<Result> run(Settings settings) {
        limiter.admin().setResourceDefaults(OPEN, List.of(Limit.perMinute("rpm", OPEN_RATE_PER_MINUTE)));
        limiter.admin().setResourceDefaults(TIGHT, List.of(Limit.perSecond("rps", settings.tightRatePerSecond())));
        Clock clock = Clock.systemUTC();
        ReadThenWriteBaseline openBaseline = new ReadThenWriteBaseline(baselineClient, TABLE, "b4j-" + OPEN,
                OPEN_RATE_PER_MINUTE, OPEN_RATE_PER_MINUTE, 60_000, clock);
        ReadThenWriteBaseline tightBaseline = new ReadThenWriteBaseline(baselineClient, TABLE, "b4j-" + TIGHT,
                settings.tightRatePerSecond(), settings.tightRatePerSecond(), 1_000, clock);

        String[] many = new String[settings.manyKeys()];
        for (int i = 0; i < many.length; i++) {
            many[i] = "k" + i;
        }
        Decider oursMany = ours(OPEN, "rpm", many);
        Decider baselineMany = baseline(openBaseline, many);
        Decider oursHot = ours(OPEN, "rpm", new String[] {"hot"});
        Decider baselineHot = baseline(openBaseline, new String[] {"hot"});
        Decider oursTight = ours(TIGHT, "rps", new String[] {"tight-hot"});
        Decider baselineTight = baseline(tightBaseline, new String[] {"tight-hot"});

        int maxThreads = 1;
        for (int t : settings.threads()) {
            maxThreads = Math.max(maxThreads, t);
        }
        // JIT, connection pools, config cache, and every bucket created, for both sides
        progress.printf("warm-up: %d ms per side, %d threads, %d keys%n", settings.warmupMillis(), maxThreads,
                many.length);
        for (int i = 0; i < 2; i++) {
            slice(oursMany, maxThreads, many.length, settings.warmupMillis() / 2, true);
            slice(baselineMany, maxThreads, many.length, settings.warmupMillis() / 2, true);
            slice(oursHot, maxThreads, 1, settings.scenarioWarmupMillis(), true);
            slice(baselineHot, maxThreads, 1, settings.scenarioWarmupMillis(), true);
        }

        List<Result> results = new ArrayList<>();
        for (int threads : settings.threads()) {
            results.add(scenario(new Scenario("hot bucket", threads, 1, false), oursHot, baselineHot, settings));
            results.add(scenario(new Scenario(many.length + " buckets", threads, many.length, false), oursMany,
                    baselineMany, settings));
        }
        if (settings.tight()) {
            for (int threads : settings.threads()) {
                results.add(scenario(new Scenario("hot bucket, " + settings.tightRatePerSecond() + "/s limit", threads,
                        1, true), oursTight, baselineTight, settings));
            }
        }
        return results;
    }

    private Decider ours(String resource, String limit, String[] entities) {
        AcquireRequest[] requests = new AcquireRequest[entities.length];
        for (int i = 0; i < entities.length; i++) {
            requests[i] = AcquireRequest.of(entities[i], resource).consume(limit, 1);
        }
        return index -> {
            try (Lease lease = limiter.acquire(requests[index])) {
                return true;
            } catch (RateLimitExceededException refused) {
                return false;
            }
        };
    }

    private static Decider baseline(ReadThenWriteBaseline baseline, String[] keys) {
        List<Map<String, AttributeValue>> itemKeys = new ArrayList<>(keys.length);
        for (String key : keys) {
            itemKeys.add(baseline.key(key));
        }
        return index -> baseline.tryConsume(itemKeys.get(index), 1);
    }

    private Result scenario(Scenario scenario, Decider ours, Decider baseline, Settings settings) {
        progress.printf("%s, %d thread(s): %d rounds of %d ms per side%n", scenario.name(), scenario.threads(),
                settings.rounds(), settings.sliceMillis());
        Side oursSide = new Side("zae-limiter");
        Side baselineSide = new Side("read + conditional put");
        long startMillis = System.currentTimeMillis();
        long startNanos = System.nanoTime();
        slice(ours, scenario.threads(), scenario.keys(), settings.scenarioWarmupMillis(), false);
        slice(baseline, scenario.threads(), scenario.keys(), settings.scenarioWarmupMillis(), false);
        for (int round = 0; round < settings.rounds(); round++) {
            if (round % 2 == 0) {
                measure(oursSide, ours, oursCounter, scenario, settings);
                measure(baselineSide, baseline, baselineCounter, scenario, settings);
            } else {
                measure(baselineSide, baseline, baselineCounter, scenario, settings);
                measure(oursSide, ours, oursCounter, scenario, settings);
            }
        }
        long spanNanos = System.nanoTime() - startNanos;
        long spanMillis = Math.max(System.currentTimeMillis() - startMillis, (spanNanos + 999_999) / 1_000_000) + 1;
        return new Result(scenario, oursSide, baselineSide, spanMillis);
    }

    private void measure(Side side, Decider decider, RequestCounter counter, Scenario scenario, Settings settings) {
        Map<String, Long> before = counter.snapshot();
        Slice slice = slice(decider, scenario.threads(), scenario.keys(), settings.sliceMillis(), false);
        RequestCounter.difference(counter.snapshot(), before).forEach((k, v) -> side.requests.merge(k, v, Long::sum));
        side.latencies.addAll(slice.latencies);
        side.decisions += slice.decisions;
        side.admitted += slice.admitted;
        side.errors += slice.errors;
        side.elapsedNanos += slice.elapsedNanos;
        if (side.firstError == null) {
            side.firstError = slice.firstError;
        }
    }

    /** What the threads of one slice did. */
    private static final class Slice {
        final LatencyRecorder latencies = new LatencyRecorder();
        long decisions;
        long admitted;
        long errors;
        long elapsedNanos;
        String firstError;
    }

    /**
     * {@code threads} closed-loop threads calling {@code decider} for {@code millis}; thread {@code t} starts at key
     * {@code t * keys / threads} and goes round-robin. With {@code touchAll}, each thread first makes enough calls
     * for the threads together to touch every key once.
     */
    private static Slice slice(Decider decider, int threads, int keys, long millis, boolean touchAll) {
        Slice total = new Slice();
        Slice[] perThread = new Slice[threads];
        Thread[] workers = new Thread[threads];
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] deadline = new long[1];
        // at least one call per thread, even one that a busy machine wakes only after the deadline
        int minCalls = touchAll ? (keys + threads - 1) / threads : 1;
        for (int t = 0; t < threads; t++) {
            Slice mine = new Slice();
            perThread[t] = mine;
            int first = (int) ((long) t * keys / threads);
            workers[t] = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                int index = first;
                long end = deadline[0];
                for (long calls = 0; calls < minCalls || System.nanoTime() < end; calls++) {
                    long start = System.nanoTime();
                    try {
                        boolean admitted = decider.decide(index);
                        mine.latencies.record(System.nanoTime() - start);
                        mine.decisions++;
                        if (admitted) {
                            mine.admitted++;
                        }
                    } catch (RuntimeException e) {
                        mine.errors++;
                        if (mine.firstError == null) {
                            mine.firstError = e.toString();
                        }
                    }
                    index = index + 1 == keys ? 0 : index + 1;
                }
            }, "bench-" + t);
            workers[t].start();
        }
        try {
            ready.await();
            long start = System.nanoTime();
            deadline[0] = start + millis * 1_000_000L;
            go.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
            total.elapsedNanos = System.nanoTime() - start;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        for (Slice s : perThread) {
            total.latencies.addAll(s.latencies);
            total.decisions += s.decisions;
            total.admitted += s.admitted;
            total.errors += s.errors;
            if (total.firstError == null) {
                total.firstError = s.firstError;
            }
        }
        return total;
    }

    @Override
    public void close() {
        store.close();
        oursClient.close();
        baselineClient.close();
    }
}
