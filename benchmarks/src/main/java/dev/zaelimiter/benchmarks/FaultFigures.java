package dev.zaelimiter.benchmarks;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import dev.zaelimiter.store.dynamodb.Dynalite;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * How long decisions take while the DynamoDB store is hung or dead, with the limiter and store as an application
 * builds them with their defaults and the SDK's default client: for each policy, a dynalite process of its own, a few
 * threads acquiring (one call per thread per millisecond at most), the store up, then stopped with SIGSTOP for
 * {@code --hang-ms}, continued, up again, then killed with SIGKILL for {@code --dead-ms}. Prints one Markdown row per
 * phase: decisions, outcomes and latency. A call under way when the store was stopped or killed counts in that
 * fault's phase, however long it then takes.
 *
 * <pre>
 * mvn -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/zae-limiter-benchmarks.jar dev.zaelimiter.benchmarks.FaultFigures
 * </pre>
 *
 * Uses only API that predates the request deadline and the circuit breaker, so the same file measures a build
 * without them.
 */
public final class FaultFigures {

    enum Kind { ADMITTED, DEGRADED, UNAVAILABLE, OTHER }

    record Call(int phase, Kind kind, long nanos) {
    }

    static final int UP = 0;
    static final int HUNG = 1;
    static final int CONTINUED = 2;
    static final int DEAD = 3;
    static final int OVER = 4;

    private FaultFigures() {
    }

    public static void main(String[] args) throws Exception {
        long upMs = option(args, "up-ms", 3000);
        long hangMs = option(args, "hang-ms", 10_000);
        long deadMs = option(args, "dead-ms", 10_000);
        int threads = (int) option(args, "threads", 4);
        System.out.println("| policy | store | decisions | outcomes | median | p99 | max |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (Unavailable policy : Unavailable.values()) {
            run(policy, upMs, hangMs, deadMs, threads);
        }
    }

    private static void run(Unavailable policy, long upMs, long hangMs, long deadMs, int threads) throws Exception {
        try (Dynalite server = Dynalite.start()) {
            DynamoDbClient client = server.client();
            DynamoDbStore store = DynamoDbStore.builder().client(client).table("faults").build();
            store.createTableIfMissing();
            RateLimiter limiter = RateLimiter.builder().store(store).onUnavailable(policy).build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100_000_000)));

            AtomicInteger phase = new AtomicInteger(UP);
            Queue<Call> calls = new ConcurrentLinkedQueue<>();
            List<Thread> workers = new ArrayList<>();
            AtomicBoolean running = new AtomicBoolean(true);
            for (int i = 0; i < threads; i++) {
                String entity = "user-" + i;
                Thread worker = new Thread(() -> {
                    while (running.get()) {
                        int at = phase.get();
                        long started = System.nanoTime();
                        Kind kind;
                        try (Lease lease = limiter.acquire(entity, "api", Map.of("rpm", 1L))) {
                            kind = lease.degraded() ? Kind.DEGRADED : Kind.ADMITTED;
                        } catch (StoreUnavailableException e) {
                            kind = Kind.UNAVAILABLE;
                        } catch (RuntimeException e) {
                            kind = Kind.OTHER;
                        }
                        calls.add(new Call(attribute(at, phase.get()), kind, System.nanoTime() - started));
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }, "fault-figures-" + i);
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }

            Thread.sleep(upMs);
            signal(server.pid(), "-STOP");
            phase.set(HUNG);
            Thread.sleep(hangMs);
            signal(server.pid(), "-CONT");
            phase.set(CONTINUED);
            Thread.sleep(upMs);
            signal(server.pid(), "-KILL");
            phase.set(DEAD);
            Thread.sleep(deadMs);
            phase.set(OVER);
            running.set(false);
            for (Thread worker : workers) {
                worker.join(TimeUnit.MINUTES.toMillis(2));
            }

            String[] names = {"up", "hung " + hangMs / 1000 + " s", "continued", "dead " + deadMs / 1000 + " s"};
            for (int p = UP; p <= DEAD; p++) {
                int of = p;
                row(policy, names[p], calls.stream().filter(c -> c.phase() == of).toList());
            }
        }
    }

    /**
     * The phase a call counts in: a fault phase it overlapped (a call under way when the store was stopped counts
     * as one made while it was hung), else the one it started in.
     */
    static int attribute(int startedIn, int endedIn) {
        for (int fault : new int[] {HUNG, DEAD}) {
            if (startedIn <= fault && fault <= endedIn) {
                return fault;
            }
        }
        return startedIn;
    }

    private static void row(Unavailable policy, String phase, List<Call> calls) {
        long[] nanos = calls.stream().mapToLong(Call::nanos).sorted().toArray();
        Map<String, Long> outcomes = new TreeMap<>();
        calls.forEach(c -> outcomes.merge(c.kind().name().toLowerCase(), 1L, Long::sum));
        System.out.printf("| %s | %s | %d | %s | %s | %s | %s |%n", policy, phase, nanos.length,
                outcomes.toString().replaceAll("[{}]", "").replace("=", " "),
                ms(percentile(nanos, 0.5)), ms(percentile(nanos, 0.99)),
                ms(nanos.length == 0 ? 0 : nanos[nanos.length - 1]));
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }

    private static String ms(long nanos) {
        double ms = nanos / 1e6;
        return ms >= 100 ? String.format("%.0f ms", ms) : ms >= 1 ? String.format("%.1f ms", ms)
                : String.format("%.3f ms", ms);
    }

    private static void signal(long pid, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill " + signal + " " + pid + " failed");
        }
    }

    private static long option(String[] args, String name, long fallback) {
        return Arrays.stream(args).filter(a -> a.startsWith("--" + name + "="))
                .map(a -> Long.parseLong(a.substring(name.length() + 3))).findFirst().orElse(fallback);
    }
}
