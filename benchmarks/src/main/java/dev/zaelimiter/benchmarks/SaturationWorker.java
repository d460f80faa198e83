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
import java.util.function.Supplier;

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

    /** One decision of a driven thread: whether it was admitted; a failure throws. */
    interface Decision {
        boolean decide();
    }

    /** What the calling thread has sent so far: requests (or commands), and the reads forced among them. */
    interface ThreadCount {
        long requests();

        long forced();
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Map<String, String> a = options(args);
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

        warmUp(decision(limiter, AcquireRequest.of("warm-" + a.get("entity") + "-" + a.get("process-index"),
                SaturationBenchmark.RESOURCE).consume(SaturationBenchmark.LIMIT, 1)), a);
        // the measured bucket's configuration, cached once per stamp TTL in steady state, is loaded before the start
        limiter.checkAvailability(a.get("entity"), SaturationBenchmark.RESOURCE,
                Map.of(SaturationBenchmark.LIMIT, 1L));

        Map<String, Long> before = counter.snapshot();
        SaturationTally total = measure(a, decision(limiter, measured), () -> {
            RequestCounter.ThreadCounts mine = counter.thread();
            return new ThreadCount() {
                @Override
                public long requests() {
                    return mine.requests;
                }

                @Override
                public long forced() {
                    return mine.forcedReads;
                }
            };
        });
        total.operations.putAll(RequestCounter.difference(counter.snapshot(), before));
        System.out.println("RESULT " + total.toLine());
        System.out.flush();
        store.close();
        client.close();
        System.exit(0);
    }

    /** Our acquire of {@code request}, the lease closed at once. */
    static Decision decision(RateLimiter limiter, AcquireRequest request) {
        return () -> {
            try (Lease lease = limiter.acquire(request)) {
                return true;
            } catch (RateLimitExceededException refused) {
                return false;
            }
        };
    }

    /**
     * Prints {@code READY}, waits for {@code GO <epochMillis>} on standard input, then from that instant drives
     * {@code decision} with the paced threads of the options ({@code threads}, {@code process-index},
     * {@code total-threads}, {@code demand}, {@code run-ms}) and returns what they did; {@code counts} gives each
     * thread its own count, read on that thread.
     */
    static SaturationTally measure(Map<String, String> a, Decision decision, Supplier<ThreadCount> counts)
            throws Exception {
        int threads = Integer.parseInt(a.get("threads"));
        int processIndex = Integer.parseInt(a.get("process-index"));
        int totalThreads = Integer.parseInt(a.get("total-threads"));
        double demand = Double.parseDouble(a.get("demand"));
        long runMillis = Long.parseLong(a.get("run-ms"));
        long maxWaitMillis = Long.parseLong(a.getOrDefault("max-wait-ms", "0"));

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

        SaturationTally[] perThread = new SaturationTally[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            SaturationTally mine = new SaturationTally();
            perThread[t] = mine;
            int global = processIndex * threads + t;
            long first = startNanos + intervalNanos * global / totalThreads;
            workers[t] = new Thread(() -> {
                if (maxWaitMillis > 0) {
                    waitInLoop(decision, counts.get(), mine, global, endNanos);
                } else {
                    drive(decision, counts.get(), mine, first, intervalNanos, endNanos);
                }
            }, "saturation-" + global);
            workers[t].start();
        }
        SaturationTally total = new SaturationTally();
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            total.merge(perThread[t]);
        }
        return total;
    }

    private static void drive(Decision decision, ThreadCount mine, SaturationTally tally, long first,
            long intervalNanos, long endNanos) {
        long next = first;
        // the first slot is always called, so that every thread makes at least one call however late it wakes
        while (next < endNanos) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            long requests = mine.requests();
            long forced = mine.forced();
            long startMillis = System.currentTimeMillis();
            long startNanos = System.nanoTime();
            int outcome;
            try {
                outcome = decision.decide() ? 1 : 0;
            } catch (RuntimeException e) {
                outcome = -1;
                if (tally.firstError == null) {
                    tally.firstError = e.toString();
                }
            }
            tally.call(startMillis, System.currentTimeMillis(), System.nanoTime() - startNanos);
            if (outcome == 1) {
                tally.admitted++;
                tally.requestsAdmitted += mine.requests() - requests;
                tally.forcedAdmitted += mine.forced() - forced;
            } else {
                if (outcome == 0) {
                    tally.refused++;
                } else {
                    tally.errors++;
                }
                tally.requestsRefused += mine.requests() - requests;
                tally.forcedRefused += mine.forced() - forced;
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
     * The waiting benchmark's thread ({@link WaitingBenchmark}): runs {@code decision} (an acquire with its
     * {@code maxWait}) in a closed loop until the end and prints one {@code CALL} line per call: thread, start and end
     * (epoch ms), outcome (1 admitted, 0 refused, -1 failed), and the requests the call sent (forced reads left out).
     */
    private static void waitInLoop(Decision decision, ThreadCount mine, SaturationTally tally, int thread,
            long endNanos) {
        StringBuilder lines = new StringBuilder();
        while (System.nanoTime() < endNanos) {
            long requests = mine.requests();
            long forced = mine.forced();
            long startMillis = System.currentTimeMillis();
            long startNanos = System.nanoTime();
            int outcome;
            try {
                outcome = decision.decide() ? 1 : 0;
            } catch (RuntimeException e) {
                outcome = -1;
                if (tally.firstError == null) {
                    tally.firstError = e.toString();
                }
            }
            long endMillis = System.currentTimeMillis();
            tally.call(startMillis, endMillis, System.nanoTime() - startNanos);
            long sent = mine.requests() - requests;
            long forcedSent = mine.forced() - forced;
            if (outcome == 1) {
                tally.admitted++;
                tally.requestsAdmitted += sent;
                tally.forcedAdmitted += forcedSent;
            } else {
                if (outcome == 0) {
                    tally.refused++;
                } else {
                    tally.errors++;
                }
                tally.requestsRefused += sent;
                tally.forcedRefused += forcedSent;
            }
            lines.append("CALL ").append(thread).append(' ').append(startMillis).append(' ').append(endMillis)
                    .append(' ').append(outcome).append(' ').append(sent - forcedSent).append('\n');
        }
        synchronized (System.out) {
            System.out.print(lines);
        }
    }

    /**
     * Closed loops of {@code decision} on a bucket of this process's own with the measured limit, from as many
     * threads as the options' {@code threads} for their {@code warmup-ms}, so that every path a saturated bucket takes
     * (admitted, refused, lost races) is compiled and the connections are open before the measured run.
     */
    static void warmUp(Decision decision, Map<String, String> a) throws InterruptedException {
        int threads = Integer.parseInt(a.get("threads"));
        long end = System.nanoTime() + Long.parseLong(a.get("warmup-ms")) * 1_000_000L;
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                do {
                    try {
                        decision.decide();
                    } catch (RuntimeException slow) {
                        // a first connection on a loaded machine can miss its deadline: the run measures, not this
                    }
                } while (System.nanoTime() < end);
            });
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
    }

    static Map<String, String> options(String[] args) {
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
