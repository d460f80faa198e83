package dev.zaelimiter.benchmarks;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
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
import java.util.concurrent.locks.LockSupport;

/**
 * One process of the saturation benchmark ({@link SaturationBenchmark} starts it with this JVM's class path). It
 * builds its own client (with a {@link RequestCounter}), store and limiter, warms up on a bucket of its own (same
 * limit, closed loops), prints {@code READY}, waits for {@code GO <epochMillis>} on standard input, then from that
 * instant drives the measured bucket with paced threads for the run's duration and prints {@code RESULT <tally>}.
 *
 * <p>Pacing: the run's demand is split evenly over all threads of all processes; each thread calls at fixed
 * intervals, staggered against the others. A thread still busy when its next slot comes calls at once and drops the
 * slots it missed (no catch-up burst), so the achieved demand is what the threads could send, reported as such.
 */
public final class SaturationWorker {

    private SaturationWorker() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Map<String, String> a = options(args);
        int threads = Integer.parseInt(a.get("threads"));
        int processIndex = Integer.parseInt(a.get("process-index"));
        int totalThreads = Integer.parseInt(a.get("total-threads"));
        double demand = Double.parseDouble(a.get("demand"));
        long runMillis = Long.parseLong(a.get("run-ms"));
        long warmupMillis = Long.parseLong(a.get("warmup-ms"));

        RequestCounter counter = new RequestCounter();
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(a.get("endpoint")))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> c.addExecutionInterceptor(counter))
                .build();
        // a slow request on a loaded machine is measured, not failed: this benchmark counts requests
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(a.get("table"))
                .namespace(a.get("namespace")).requestTimeout(java.time.Duration.ofSeconds(10)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).onUnavailable(Unavailable.BLOCK).build();
        AcquireRequest measured = AcquireRequest.of(a.get("entity"), SaturationBenchmark.RESOURCE)
                .consume(SaturationBenchmark.LIMIT, 1);
        long maxWaitMillis = Long.parseLong(a.getOrDefault("max-wait-ms", "0"));
        if (maxWaitMillis > 0) {
            measured = measured.maxWait(java.time.Duration.ofMillis(maxWaitMillis))
                    .priority(Integer.parseInt(a.getOrDefault("priority", "0")));
        }
        AcquireRequest request = measured;

        warmUp(limiter, AcquireRequest.of("warm-" + a.get("entity") + "-" + processIndex, SaturationBenchmark.RESOURCE)
                .consume(SaturationBenchmark.LIMIT, 1), threads, warmupMillis);
        // the measured bucket's configuration, cached once per stamp TTL in steady state, is loaded before the start
        limiter.checkAvailability(a.get("entity"), SaturationBenchmark.RESOURCE,
                Map.of(SaturationBenchmark.LIMIT, 1L));

        System.out.println("READY");
        System.out.flush();
        String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if (go == null || !go.startsWith("GO ")) {
            throw new IllegalStateException("expected 'GO <epochMillis>', got " + go);
        }
        long startMillis = Long.parseLong(go.substring(3).trim());
        long startNanos = System.nanoTime() + (startMillis - System.currentTimeMillis()) * 1_000_000L;
        long endNanos = startNanos + runMillis * 1_000_000L;
        long intervalNanos = Math.max(1, Math.round(totalThreads * 1e9 / demand));

        Map<String, Long> before = counter.snapshot();
        SaturationTally[] perThread = new SaturationTally[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            SaturationTally mine = new SaturationTally();
            perThread[t] = mine;
            int global = processIndex * threads + t;
            long first = startNanos + intervalNanos * global / totalThreads;
            workers[t] = new Thread(() -> {
                if (maxWaitMillis > 0) {
                    waitInLoop(limiter, request, counter, mine, global, endNanos);
                } else {
                    drive(limiter, request, counter, mine, first, intervalNanos, endNanos);
                }
            }, "saturation-" + global);
            workers[t].start();
        }
        SaturationTally total = new SaturationTally();
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            total.merge(perThread[t]);
        }
        total.operations.putAll(RequestCounter.difference(counter.snapshot(), before));
        System.out.println("RESULT " + total.toLine());
        System.out.flush();
        store.close();
        client.close();
        System.exit(0);
    }

    private static void drive(RateLimiter limiter, AcquireRequest request, RequestCounter counter,
            SaturationTally tally, long first, long intervalNanos, long endNanos) {
        RequestCounter.ThreadCounts mine = counter.thread();
        long next = first;
        // the first slot is always called, so that every thread makes at least one call however late it wakes
        while (next < endNanos) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            long requests = mine.requests;
            long forced = mine.forcedReads;
            long startMillis = System.currentTimeMillis();
            long startNanos = System.nanoTime();
            int outcome;
            try (Lease lease = limiter.acquire(request)) {
                outcome = 1;
            } catch (RateLimitExceededException refused) {
                outcome = 0;
            } catch (RuntimeException e) {
                outcome = -1;
                if (tally.firstError == null) {
                    tally.firstError = e.toString();
                }
            }
            tally.call(startMillis, System.currentTimeMillis(), System.nanoTime() - startNanos);
            if (outcome == 1) {
                tally.admitted++;
                tally.requestsAdmitted += mine.requests - requests;
                tally.forcedAdmitted += mine.forcedReads - forced;
            } else {
                if (outcome == 0) {
                    tally.refused++;
                } else {
                    tally.errors++;
                }
                tally.requestsRefused += mine.requests - requests;
                tally.forcedRefused += mine.forcedReads - forced;
            }
            next += intervalNanos;
            long now = System.nanoTime();
            if (now - next > intervalNanos) {
                long missed = (now - next) / intervalNanos;
                tally.missedSlots += missed;
                next += missed * intervalNanos;
            }
        }
    }

    /**
     * The waiting benchmark's thread ({@link WaitingBenchmark}): acquires with its {@code maxWait} in a closed loop
     * until the end, closing each lease at once, and prints one {@code CALL} line per call: thread, start and end
     * (epoch ms), outcome (1 admitted, 0 refused, -1 failed), and the requests the call sent.
     */
    private static void waitInLoop(RateLimiter limiter, AcquireRequest request, RequestCounter counter,
            SaturationTally tally, int thread, long endNanos) {
        RequestCounter.ThreadCounts mine = counter.thread();
        StringBuilder lines = new StringBuilder();
        while (System.nanoTime() < endNanos) {
            long requests = mine.requests;
            long forced = mine.forcedReads;
            long startMillis = System.currentTimeMillis();
            long startNanos = System.nanoTime();
            int outcome;
            try (Lease lease = limiter.acquire(request)) {
                outcome = 1;
            } catch (RateLimitExceededException refused) {
                outcome = 0;
            } catch (RuntimeException e) {
                outcome = -1;
                if (tally.firstError == null) {
                    tally.firstError = e.toString();
                }
            }
            long endMillis = System.currentTimeMillis();
            tally.call(startMillis, endMillis, System.nanoTime() - startNanos);
            long sent = mine.requests - requests;
            if (outcome == 1) {
                tally.admitted++;
                tally.requestsAdmitted += sent;
                tally.forcedAdmitted += mine.forcedReads - forced;
            } else {
                if (outcome == 0) {
                    tally.refused++;
                } else {
                    tally.errors++;
                }
                tally.requestsRefused += sent;
                tally.forcedRefused += mine.forcedReads - forced;
            }
            lines.append("CALL ").append(thread).append(' ').append(startMillis).append(' ').append(endMillis)
                    .append(' ').append(outcome).append(' ').append(sent - (mine.forcedReads - forced)).append('\n');
        }
        synchronized (System.out) {
            System.out.print(lines);
        }
    }

    /**
     * Closed loops on a bucket of this process's own with the measured limit, so that every path a saturated bucket
     * takes (admitted, refused, lost races) is compiled and the connections are open before the measured run.
     */
    private static void warmUp(RateLimiter limiter, AcquireRequest request, int threads, long millis)
            throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                do {
                    try {
                        limiter.acquire(request).close();
                    } catch (RateLimitExceededException refused) {
                        // as expected, most of the time
                    }
                } while (System.nanoTime() < end);
            });
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            String[] kv = arg.replaceFirst("^--", "").split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("expected --name=value, got " + arg);
            }
            options.put(kv[0], kv[1]);
        }
        return options;
    }
}
