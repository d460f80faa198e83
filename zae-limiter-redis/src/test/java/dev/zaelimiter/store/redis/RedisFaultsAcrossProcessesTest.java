package dev.zaelimiter.store.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static dev.zaelimiter.store.redis.RedisFaultsWorker.BUCKETS;
import static dev.zaelimiter.store.redis.RedisFaultsWorker.CAPACITY;
import static dev.zaelimiter.store.redis.RedisFaultsWorker.DEADLINE;
import static dev.zaelimiter.store.redis.RedisFaultsWorker.REFILL_PER_SECOND;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisFaultsUnderLoadTest} across processes: three JVMs running {@link RedisFaultsWorker} (a store, a limiter
 * and four threads each, on the real clock) decide on two shared buckets while the server is stopped
 * ({@code SIGSTOP}), continued, killed ({@code SIGKILL}) and started again empty on its port. Every call ends admitted,
 * refused or unavailable within its bound, every worker stops its threads when told, every worker decides again once
 * the server is back, and each bucket admits at most its capacity once more per loss plus the refill of the run's
 * wall time. Only counts and generous bounds are asserted: the clock is real.
 */
@Timeout(180)
class RedisFaultsAcrossProcessesTest {

    private static final int WORKERS = 3;
    private static final int THREADS = 4;
    /** A call's turn on its bucket, then 20 deadlines going round, and slack for a loaded machine. */
    private static final long CALL_BOUND_MILLIS = DEADLINE.multipliedBy(22).plusSeconds(5).toMillis();
    private static final int DECIDED = 0;
    private static final int UNAVAILABLE = 1;
    private static final int ADMITTED = 2;
    private static final int OVER_BOUND = 4;
    private static final int UNEXPECTED = 5;

    /** One worker JVM and the last counts it printed. */
    private record Worker(Process process, Writer in, AtomicReference<long[]> counts, AtomicReference<long[]> end) {

        long count(int index) {
            return counts.get()[index];
        }
    }

    @Test
    void callsEndWithinTheirBoundAndTotalsStayWithinOneCapacityPerLossAcrossProcesses() throws Exception {
        RedisServer server = RedisServer.start();
        int port = server.port();
        List<Worker> workers = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (int w = 0; w < WORKERS; w++) {
                workers.add(start(server.uri()));
            }
            await(() -> spent(workers, CAPACITY), "both buckets spent");
            awaitEach(workers, DECIDED, "every worker decides");
            for (int b = 0; b < BUCKETS.length; b++) {
                assertThat(admitted(workers, b)).as("%s before the faults", BUCKETS[b])
                        .isLessThanOrEqualTo(CAPACITY + refill(started));
            }

            signal("STOP", server.pid());
            try {
                awaitEach(workers, UNAVAILABLE, "every worker finds the stopped server unavailable");
            } finally {
                signal("CONT", server.pid());
            }
            awaitEach(workers, DECIDED, "every worker decides again after SIGCONT");

            signal("KILL", server.pid());
            awaitEach(workers, UNAVAILABLE, "every worker finds the killed server unavailable");
            long admittedBeforeRestart = admitted(workers, 0) + admitted(workers, 1);
            server = RedisServer.start(port);
            awaitEach(workers, DECIDED, "every worker decides again on the restarted server");
            await(() -> admitted(workers, 0) + admitted(workers, 1) > admittedBeforeRestart,
                    "the empty server's buckets admit again");
            for (int round = 0; round < 3; round++) {
                awaitEach(workers, DECIDED, "every worker decides on after the restart");
            }

            for (Worker worker : workers) {
                worker.in().write("STOP\n");
                worker.in().flush();
            }
            for (Worker worker : workers) {
                assertThat(worker.process().waitFor(1, TimeUnit.MINUTES)).as("the worker exits").isTrue();
                assertThat(worker.process().exitValue()).as("the worker's exit code").isZero();
                await(() -> worker.end().get() != null, "the worker's END line read");
            }
        } finally {
            for (Worker worker : workers) {
                worker.process().destroyForcibly();
            }
            server.close();
        }

        for (Worker worker : workers) {
            long[] end = worker.end().get();
            assertThat(end).as("the worker reported its end").isNotNull();
            assertThat(end[UNEXPECTED]).as("every call admitted, refused or unavailable").isZero();
            assertThat(end[OVER_BOUND]).as("calls past %d ms", CALL_BOUND_MILLIS).isZero();
            assertThat(end[end.length - 1]).as("threads still running after the stop").isZero();
        }
        long losses = 1;
        long refill = refill(started);
        for (int b = 0; b < BUCKETS.length; b++) {
            long admitted = 0;
            for (Worker worker : workers) {
                admitted += worker.end().get()[ADMITTED + b];
            }
            assertThat(admitted).as("%s: capacity, once more per loss, and the refill of the run", BUCKETS[b])
                    .isLessThanOrEqualTo(CAPACITY * (1 + losses) + refill);
        }
    }

    private static Worker start(String uri) throws IOException {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                RedisFaultsWorker.class.getName(), uri, Integer.toString(THREADS), Long.toString(CALL_BOUND_MILLIS))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Worker worker = new Worker(process, new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8),
                new AtomicReference<>(new long[6]), new AtomicReference<>());
        Thread reader = new Thread(() -> read(process, worker), "faults-reader-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        return worker;
    }

    private static void read(Process process, Worker worker) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("TALLY ")) {
                    worker.counts().set(parse(line.substring("TALLY ".length())));
                } else if (line.startsWith("END ")) {
                    long[] end = parse(line.substring("END ".length()));
                    worker.counts().set(Arrays.copyOf(end, 6));
                    worker.end().set(end);
                }
            }
        } catch (IOException e) {
            // the worker is gone: its missing END fails the test
        }
    }

    private static long[] parse(String counts) {
        return Arrays.stream(counts.split(" ")).mapToLong(Long::parseLong).toArray();
    }

    /** What a bucket may have refilled since {@code started}, rounded up. */
    private static long refill(long started) {
        return REFILL_PER_SECOND * TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) / 1000 + 1;
    }

    private static long admitted(List<Worker> workers, int bucket) {
        long admitted = 0;
        for (Worker worker : workers) {
            admitted += worker.count(ADMITTED + bucket);
        }
        return admitted;
    }

    private static boolean spent(List<Worker> workers, long count) {
        for (int b = 0; b < BUCKETS.length; b++) {
            if (admitted(workers, b) < count) {
                return false;
            }
        }
        return true;
    }

    /** Waits until each worker's count at {@code index} has grown from now on. */
    private static void awaitEach(List<Worker> workers, int index, String what) throws InterruptedException {
        long[] from = workers.stream().mapToLong(w -> w.count(index)).toArray();
        await(() -> {
            for (int i = 0; i < from.length; i++) {
                if (workers.get(i).count(index) <= from[i]) {
                    return false;
                }
            }
            return true;
        }, what);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }
}
