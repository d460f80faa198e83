package dev.zaelimiter.benchmarks;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.RecordingClock;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * One process of the hot-bucket benchmark ({@link HotBucketBenchmark}): paced threads on one bucket, as in
 * {@link SaturationWorker}, counting every admitted token at the instant the limiter decided it (read from the
 * limiter's clock by the calling thread) so that the coordinator can check every one-second window, and every
 * call's latency. Prints {@code READY}, waits for {@code GO <epochMillis>}, runs, closes its store (giving back what it
 * holds), then prints {@code RESULT ...} and {@code HANDOUT ms:count,...}.
 */
public final class HotBucketWorker {

    /**
     * How many slots a thread that fell behind (a late wake-up on a busy machine) still sends back to back before it
     * drops the rest, so that the demand sent is the demand asked for unless the machine truly cannot send it.
     */
    private static final long CATCH_UP_SLOTS = 50;

    private HotBucketWorker() {
    }


    /** What one thread did. */
    private static final class Tally {
        long calls;
        long admitted;
        long refused;
        long errors;
        long missedSlots;
        long firstStartMillis = Long.MAX_VALUE;
        long lastEndMillis;
        String firstError;
        final LatencyRecorder latencies = new LatencyRecorder();
        final Map<Long, Long> handedOut = new HashMap<>();
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            String[] kv = arg.replaceFirst("^--", "").split("=", 2);
            a.put(kv[0], kv[1]);
        }
        int threads = Integer.parseInt(a.get("threads"));
        int processIndex = Integer.parseInt(a.get("process-index"));
        int totalThreads = Integer.parseInt(a.get("total-threads"));
        double demand = Double.parseDouble(a.get("demand"));
        long runMillis = Long.parseLong(a.get("run-ms"));
        long warmupMillis = Long.parseLong(a.get("warmup-ms"));
        String resource = a.get("resource");

        RequestCounter counter = new RequestCounter();
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(a.get("endpoint")))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> c.addExecutionInterceptor(counter))
                .build();
        RecordingClock clock = new RecordingClock();
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(a.get("table")).clock(clock)
                .namespace(a.get("namespace")).requestTimeout(java.time.Duration.ofSeconds(10)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).onUnavailable(Unavailable.BLOCK)
                .build();
        AcquireRequest measured = AcquireRequest.of(a.get("entity"), resource).consume(HotBucketBenchmark.LIMIT, 1);

        AcquireRequest warm = AcquireRequest.of("warm-" + a.get("entity") + "-" + processIndex, resource)
                .consume(HotBucketBenchmark.LIMIT, 1);
        long warmEnd = System.nanoTime() + warmupMillis * 1_000_000L;
        while (System.nanoTime() < warmEnd) {
            try {
                limiter.acquire(warm).close();
            } catch (RateLimitExceededException refused) {
                // as expected at times
            }
        }
        limiter.checkAvailability(a.get("entity"), resource, Map.of(HotBucketBenchmark.LIMIT, 1L));

        System.out.println("READY");
        System.out.flush();
        String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        long startMillis = Long.parseLong(go.substring(3).trim());
        long startNanos = System.nanoTime() + (startMillis - System.currentTimeMillis()) * 1_000_000L;
        long endNanos = startNanos + runMillis * 1_000_000L;
        long intervalNanos = Math.max(1, Math.round(totalThreads * 1e9 / demand));

        Map<String, Long> before = counter.snapshot();
        Tally[] tallies = new Tally[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            Tally mine = new Tally();
            tallies[t] = mine;
            int global = processIndex * threads + t;
            long first = startNanos + intervalNanos * global / totalThreads;
            workers[t] = new Thread(() -> drive(limiter, clock, measured, mine, first, intervalNanos, endNanos),
                    "hot-" + global);
            workers[t].start();
        }
        Tally total = new Tally();
        TreeMap<Long, Long> handedOut = new TreeMap<>();
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            Tally x = tallies[t];
            total.calls += x.calls;
            total.admitted += x.admitted;
            total.refused += x.refused;
            total.errors += x.errors;
            total.missedSlots += x.missedSlots;
            total.firstStartMillis = Math.min(total.firstStartMillis, x.firstStartMillis);
            total.lastEndMillis = Math.max(total.lastEndMillis, x.lastEndMillis);
            total.latencies.addAll(x.latencies);
            x.handedOut.forEach((k, v) -> handedOut.merge(k, v, Long::sum));
            if (total.firstError == null) {
                total.firstError = x.firstError;
            }
        }
        store.close();
        long requests = 0;
        for (Map.Entry<String, Long> e : RequestCounter.difference(counter.snapshot(), before).entrySet()) {
            if (RequestCounter.isOperation(e.getKey())) {
                requests += e.getValue();
            }
        }
        System.out.println("RESULT " + total.calls + " " + total.admitted + " " + total.refused + " " + total.errors
                + " " + total.missedSlots + " " + requests + " " + total.latencies.quantile(0.5) + " "
                + total.latencies.quantile(0.99) + " " + total.firstStartMillis + " " + total.lastEndMillis + " "
                + (total.firstError == null ? "-" : total.firstError.replace(' ', '_')));
        StringJoiner line = new StringJoiner(",", "HANDOUT ", "");
        handedOut.forEach((ms, count) -> line.add(ms + ":" + count));
        System.out.println(line);
        System.out.flush();
        client.close();
        System.exit(0);
    }

    private static void drive(RateLimiter limiter, RecordingClock clock, AcquireRequest request, Tally tally,
            long first, long intervalNanos, long endNanos) {
        long next = first;
        while (next < endNanos) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            long startMillis = System.currentTimeMillis();
            long startNanos = System.nanoTime();
            try (Lease lease = limiter.acquire(request)) {
                tally.admitted++;
                tally.handedOut.merge(clock.lastOnThisThread(), 1L, Long::sum);
            } catch (RateLimitExceededException refused) {
                tally.refused++;
            } catch (RuntimeException e) {
                tally.errors++;
                if (tally.firstError == null) {
                    tally.firstError = e.toString();
                }
            }
            tally.calls++;
            tally.latencies.record(System.nanoTime() - startNanos);
            tally.firstStartMillis = Math.min(tally.firstStartMillis, startMillis);
            tally.lastEndMillis = Math.max(tally.lastEndMillis, System.currentTimeMillis());
            next += intervalNanos;
            long now = System.nanoTime();
            if (now - next > CATCH_UP_SLOTS * intervalNanos) {
                long missed = (now - next) / intervalNanos - CATCH_UP_SLOTS;
                tally.missedSlots += missed;
                next += missed * intervalNanos;
            }
        }
    }
}
