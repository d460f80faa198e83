package dev.zaelimiter.benchmarks;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Run;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Settings;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Shape;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import software.amazon.awssdk.core.util.VersionInfo;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The waiting benchmark of {@code docs/performance.md} (issue 27): every thread of one or more worker JVMs
 * ({@link SaturationWorker}) acquires one token of one bucket ({@code Limit.perSecond("rps", rate)}) with a
 * {@code maxWait} in a closed loop, so that the bucket is always wanted by more waiters than it can serve. Reports
 * per run what waiting across processes should keep: admissions within the bound, timeouts, store requests per
 * admitted call, waits, the longest time a process went without an admission, how often two calls of different
 * processes that waited at the same time came out in the other order than they came in, and, in a run with
 * priorities, the high-priority process's share. Prints Markdown tables (progress goes to stderr).
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar waiting [--rate=20] [--max-wait-ms=5000]
 *      [--run-ms=10000] [--warmup-ms=3000] [--runs=3x4,2x6,2x6p]
 * </pre>
 * A run written {@code PxTp} gives the threads of the first process priority 1, the others 0.
 */
public final class WaitingBenchmark {

    /** One run to make: its shape, and whether the first process waits at a higher priority. */
    record Plan(Shape shape, boolean priorities) {

        static Plan parse(String text) {
            String t = text.trim();
            boolean priorities = t.endsWith("p");
            return new Plan(Shape.parse(priorities ? t.substring(0, t.length() - 1) : t), priorities);
        }

        String label() {
            return shape.label() + (priorities ? ", first process at high priority" : "");
        }
    }

    /** What to run. */
    record Options(long ratePerSecond, long maxWaitMillis, long runMillis, long warmupMillis, List<Plan> plans) {

        static Options standard() {
            return new Options(20, 5_000, 10_000, 3_000, List.of(Plan.parse("3x4"), Plan.parse("2x6"),
                    Plan.parse("2x6p")));
        }

        Settings settings() {
            return new Settings(ratePerSecond, 1, runMillis, warmupMillis, plans.stream().map(Plan::shape).toList());
        }
    }

    /** One call as a worker reported it. */
    record Call(int process, long startMillis, long endMillis, int outcome, long requests) {
    }

    /** One run: the merged tally and every call. */
    record Result(Plan plan, Run run, List<Call> calls) {
    }

    private WaitingBenchmark() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Options options = parse(args);
        long started = System.nanoTime();
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (Dynalite server = Dynalite.start()) {
            List<Result> results = run(server, options, System.err);
            System.out.printf(Locale.ROOT, "Waiting: one %d/s bucket (capacity %d), every thread acquiring with"
                            + " maxWait %d ms in a closed loop, on dynalite %s%n%n", options.ratePerSecond(),
                    options.ratePerSecond(), options.maxWaitMillis(), server.version());
            System.out.printf(Locale.ROOT, "Java %s, %d available processors, AWS SDK %s; runs of %d ms after %d ms"
                            + " of warm-up; load average %.1f before, %.1f after; %.0f s in all%n%n",
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    VersionInfo.SDK_VERSION, options.runMillis(), options.warmupMillis(), loadBefore,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    (System.nanoTime() - started) / 1e9);
            System.out.print(WaitingReport.markdown(options, results));
        }
    }

    static Options parse(String[] args) {
        Options d = Options.standard();
        long rate = d.ratePerSecond();
        long maxWait = d.maxWaitMillis();
        long runMillis = d.runMillis();
        long warmupMillis = d.warmupMillis();
        List<Plan> plans = d.plans();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            String value = kv.length == 2 ? kv[1] : "";
            switch (kv[0]) {
                case "--rate" -> rate = Long.parseLong(value);
                case "--max-wait-ms" -> maxWait = Long.parseLong(value);
                case "--run-ms" -> runMillis = Long.parseLong(value);
                case "--warmup-ms" -> warmupMillis = Long.parseLong(value);
                case "--runs" -> plans = Arrays.stream(value.split(",")).map(Plan::parse).toList();
                default -> throw new IllegalArgumentException("unknown option " + arg + "; see the class comment");
            }
        }
        return new Options(rate, maxWait, runMillis, warmupMillis, plans);
    }

    /** Every run of {@code options}, each on a fresh bucket, on {@code server}. */
    static List<Result> run(Dynalite server, Options options, PrintStream progress) {
        Settings settings = options.settings();
        try (DynamoDbClient client = server.client();
             DynamoDbStore store = DynamoDbStore.builder().client(client).table(SaturationBenchmark.TABLE)
                     .namespace("wait").build()) {
            store.createTableIfMissing();
            RateLimiter.builder().store(store).build().admin().setResourceDefaults(SaturationBenchmark.RESOURCE,
                    List.of(Limit.perSecond(SaturationBenchmark.LIMIT, options.ratePerSecond())));
            List<Result> results = new ArrayList<>();
            for (int i = 0; i < options.plans().size(); i++) {
                Plan plan = options.plans().get(i);
                progress.printf(Locale.ROOT, "run %d: %s, maxWait %d ms, for %d ms%n", i + 1, plan.label(),
                        options.maxWaitMillis(), options.runMillis());
                List<Call> calls = new ArrayList<>();
                int threads = plan.shape().threads();
                Run run = SaturationBenchmark.runOne(server, store, settings, plan.shape(), "wait-" + (i + 1),
                        p -> List.of("--max-wait-ms=" + options.maxWaitMillis(),
                                "--priority=" + (plan.priorities() && p == 0 ? 1 : 0)),
                        line -> {
                            if (line.startsWith("CALL ")) {
                                String[] f = line.split(" ");
                                synchronized (calls) {
                                    calls.add(new Call(Integer.parseInt(f[1]) / threads, Long.parseLong(f[2]),
                                            Long.parseLong(f[3]), Integer.parseInt(f[4]), Long.parseLong(f[5])));
                                }
                            }
                        });
                results.add(new Result(plan, run, List.copyOf(calls)));
            }
            return results;
        }
    }
}
