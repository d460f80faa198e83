package dev.zaelimiter.benchmarks.jmh;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the in-memory JMH suite in one go (our limiter, bucket4j and resilience4j side by side, at 1 and 2 threads
 * where threads matter, with {@code -prof gc}), measures heap per bucket in a JVM of its own, and prints Markdown
 * tables of the figures and of the ratios the specification's targets (§8) are about. See docs/performance.md.
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar jmh [--long] [--buckets=1000000]
 * </pre>
 *
 * The default run takes about four minutes (1 fork, 5 warm-up and 3 measured iterations of 1 s); {@code --long}
 * takes 3 forks of 5 and 5 iterations of 2 s. {@code --smoke} runs every benchmark once, briefly, in this JVM.
 */
public final class JmhSuite {

    /** Benchmarks whose throughput is compared at 1 and at 2 threads. */
    static final String SCALING = "(InMemoryBenchmarks\\.(oneLimitHotKey|gatewayThreeLimits|gatewayTenThousandKeys"
            + "|oneLimitTenThousandKeys)|Peers\\.(bucket4jHotKey|bucket4jTenThousandKeys|bucket4jGatewayHotKey"
            + "|bucket4jGatewayTenThousandKeys|resilience4jHotKey))$";

    /** The gateway call's goal: at most 1.5 times the time of the same with three bucket4j buckets. */
    static final double GATEWAY_GOAL = 1 / 1.5;

    /** Benchmarks run at 1 thread only. */
    static final String SINGLE = "(InMemoryBenchmarks\\.refused(Attempt)?|Peers\\.bucket4jRefused|SpringBenchmarks\\..*)$";

    private JmhSuite() {
    }

    /** How long a run is. */
    enum Length {
        SMOKE, DEFAULT, LONG
    }

    public static void main(String[] args) throws Exception {
        Length length = Length.DEFAULT;
        int buckets = 1_000_000;
        for (String arg : args) {
            if (arg.equals("--long")) {
                length = Length.LONG;
            } else if (arg.equals("--smoke")) {
                length = Length.SMOKE;
            } else if (arg.startsWith("--buckets=")) {
                buckets = Integer.parseInt(arg.substring("--buckets=".length()));
            } else {
                throw new IllegalArgumentException("unknown option " + arg
                        + " (expected --long, --smoke or --buckets=N)");
            }
        }
        long started = System.nanoTime();
        Figures figures = run(length, length == Length.SMOKE ? 10_000 : buckets);
        System.out.println(figures.markdown());
        System.err.printf(Locale.ROOT, "done in %d s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    }

    /** Runs the suite and measures heap per bucket. */
    static Figures run(Length length, int buckets) throws RunnerException, IOException, InterruptedException {
        Figures figures = new Figures(new LinkedHashMap<>());
        int[] threads = length == Length.SMOKE ? new int[] {1} : new int[] {1, 2};
        for (int t : threads) {
            figures.add(runner(options(length, SCALING).threads(t)).run());
        }
        figures.add(runner(options(length, SINGLE).threads(1)).run());
        HeapPerBucket.Figures heap = length == Length.SMOKE ? HeapPerBucket.measure(buckets) : heapInOwnJvm(buckets);
        figures.heap(heap, buckets);
        return figures;
    }

    /** A runner that reports its progress on standard error, so that standard output carries the tables alone. */
    private static Runner runner(ChainedOptionsBuilder options) {
        var built = options.build();
        return new Runner(built, OutputFormatFactory.createFormatInstance(System.err,
                built.verbosity().orElse(VerboseMode.NORMAL)));
    }

    private static ChainedOptionsBuilder options(Length length, String include) {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(JmhSuite.class.getPackageName() + ".*" + include)
                .mode(org.openjdk.jmh.annotations.Mode.Throughput)
                .timeUnit(TimeUnit.MICROSECONDS)
                .shouldFailOnError(true);
        return switch (length) {
            case SMOKE -> options.forks(0).warmupIterations(0).measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(50)).verbosity(VerboseMode.SILENT);
            case DEFAULT -> options.addProfiler(GCProfiler.class).forks(1)
                    .warmupIterations(5).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(3).measurementTime(TimeValue.seconds(1))
                    .jvmArgsAppend("-Xms1g", "-Xmx1g");
            case LONG -> options.addProfiler(GCProfiler.class).forks(3)
                    .warmupIterations(5).warmupTime(TimeValue.seconds(2))
                    .measurementIterations(5).measurementTime(TimeValue.seconds(2))
                    .jvmArgsAppend("-Xms1g", "-Xmx1g");
        };
    }

    /**
     * {@link HeapPerBucket} in a fresh JVM, with the classpath and Java of this one. Its collector compacts the whole
     * heap on a full collection (the serial collector, no dead space allowed), so that the heap in use afterwards is
     * the live objects alone; the parallel collector leaves some dead objects in place, a few bytes per bucket.
     */
    private static HeapPerBucket.Figures heapInOwnJvm(int buckets) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx3g", "-XX:+UseSerialGC", "-XX:MarkSweepDeadRatio=0", "-cp",
                System.getProperty("java.class.path"), HeapPerBucket.class.getName(), Integer.toString(buckets))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Map<String, Double> values = new LinkedHashMap<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] parts = line.trim().split(" ");
                values.put(parts[0], Double.parseDouble(parts[1]));
            }
        }
        if (process.waitFor() != 0 || !values.containsKey("ours") || !values.containsKey("oursWithoutUsage")
                || !values.containsKey("bucket4j")) {
            throw new IllegalStateException("the heap measurement failed: " + values);
        }
        return new HeapPerBucket.Figures(values.get("ours"), values.get("oursWithoutUsage"), values.get("bucket4j"));
    }

    /** One benchmark at one thread count: throughput (ops/µs) and allocation (bytes/op, NaN without -prof gc). */
    record Score(double opsPerMicro, double bytesPerOp) {

        double nanosPerOp() {
            return 1000.0 / opsPerMicro;
        }
    }

    /** What one run measured, by "Class.method@threads". */
    record Figures(Map<String, Score> scores, double[] heap) {

        Figures(Map<String, Score> scores) {
            this(scores, new double[4]);
        }

        void add(Collection<RunResult> results) {
            for (RunResult result : results) {
                String benchmark = result.getParams().getBenchmark();
                String name = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
                Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
                scores.put(name + "@" + result.getParams().getThreads(), new Score(
                        result.getPrimaryResult().getScore(), alloc == null ? Double.NaN : alloc.getScore()));
            }
        }

        void heap(HeapPerBucket.Figures figures, int buckets) {
            heap[0] = figures.oursBytes();
            heap[1] = figures.bucket4jBytes();
            heap[2] = buckets;
            heap[3] = figures.oursWithoutUsageBytes();
        }

        Score score(String name, int threads) {
            Score score = scores.get(name + "@" + threads);
            if (score == null) {
                throw new IllegalStateException("no result for " + name + " at " + threads + " threads");
            }
            return score;
        }

        String markdown() {
            StringBuilder md = new StringBuilder();
            md.append("| Benchmark | Threads | ops/µs | ns/op | bytes/op |\n|---|---:|---:|---:|---:|\n");
            scores.forEach((key, s) -> md.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.0f | %s |%n",
                    key.substring(0, key.indexOf('@')), key.substring(key.indexOf('@') + 1), s.opsPerMicro(),
                    s.nanosPerOp(), Double.isNaN(s.bytesPerOp()) ? "-" : String.format(Locale.ROOT, "%.0f",
                            s.bytesPerOp()))));
            md.append("\n| Target (§8) | Threads | Ours | Peer | Ratio | Goal | Met |\n"
                    + "|---|---:|---:|---:|---:|---|---|\n");
            int maxThreads = scores.keySet().stream().anyMatch(k -> k.endsWith("@2")) ? 2 : 1;
            for (int t = 1; t <= maxThreads; t++) {
                throughput(md, "one limit, hot key vs bucket4j `tryConsume`", t,
                        score("InMemoryBenchmarks.oneLimitHotKey", t), score("Peers.bucket4jHotKey", t), 1.0);
            }
            for (int t = 1; t <= maxThreads; t++) {
                throughput(md, "one limit, hot key vs resilience4j `acquirePermission`", t,
                        score("InMemoryBenchmarks.oneLimitHotKey", t), score("Peers.resilience4jHotKey", t),
                        Double.NaN);
            }
            for (int t = 1; t <= maxThreads; t++) {
                throughput(md, "10,000 keys vs bucket4j map of buckets", t,
                        score("InMemoryBenchmarks.oneLimitTenThousandKeys", t),
                        score("Peers.bucket4jTenThousandKeys", t), 1.0);
            }
            for (int t = 1; t <= maxThreads; t++) {
                throughput(md, "3-limit gateway call with adjust, hot key, vs three bucket4j buckets", t,
                        score("InMemoryBenchmarks.gatewayThreeLimits", t), score("Peers.bucket4jGatewayHotKey", t),
                        GATEWAY_GOAL);
            }
            for (int t = 1; t <= maxThreads; t++) {
                throughput(md, "3-limit gateway call with adjust, 10,000 keys, vs three bucket4j buckets", t,
                        score("InMemoryBenchmarks.gatewayTenThousandKeys", t),
                        score("Peers.bucket4jGatewayTenThousandKeys", t), GATEWAY_GOAL);
            }
            double ours = score("InMemoryBenchmarks.refused", 1).nanosPerOp();
            double theirs = score("Peers.bucket4jRefused", 1).nanosPerOp();
            md.append(String.format(Locale.ROOT, "| refused call vs bucket4j `tryConsume` false (ns) | 1 | %.0f |"
                    + " %.0f | %.2f | ≤ 2.0 | %s |%n", ours, theirs, ours / theirs, ours / theirs <= 2.0 ? "yes" : "no"));
            double attempt = score("InMemoryBenchmarks.refusedAttempt", 1).nanosPerOp();
            md.append(String.format(Locale.ROOT, "| the same refusal by `tryAcquire` (ns) | 1 | %.0f | %.0f | %.2f |"
                    + " ≤ 2.0 | %s |%n", attempt, theirs, attempt / theirs, attempt / theirs <= 2.0 ? "yes" : "no"));
            overhead(md, "`@RateLimited` over direct acquire (ns added)", score("SpringBenchmarks.rateLimitedMethod", 1),
                    score("SpringBenchmarks.directAcquireAndMethod", 1), true);
            overhead(md, "filter, one rule, over direct acquire, on Tomcat's request/response (ns added)",
                    score("SpringBenchmarks.filter", 1), score("SpringBenchmarks.directAcquireAndChain", 1), true);
            overhead(md, "filter on Spring's mock request/response (ns added)",
                    score("SpringBenchmarks.filterOnMocks", 1),
                    score("SpringBenchmarks.directAcquireAndChainOnMocks", 1), false);
            md.append(String.format(Locale.ROOT, "| heap per one-limit bucket at %,d buckets (bytes) | - | %.0f | %.0f"
                    + " | %.2f | ≤ 150 B | %s |%n", (long) heap[2], heap[0], heap[1], heap[0] / heap[1],
                    heap[0] <= 150 ? "yes" : "no"));
            md.append(String.format(Locale.ROOT, "| the same without usage history (`noUsageHistory()`) | - | %.0f | %.0f"
                    + " | %.2f | ≤ 150 B | %s |%n", heap[3], heap[1], heap[3] / heap[1], heap[3] <= 150 ? "yes" : "no"));
            return md.toString();
        }

        private static void throughput(StringBuilder md, String what, int threads, Score ours, Score peer,
                double goal) {
            double ratio = ours.opsPerMicro() / peer.opsPerMicro();
            md.append(String.format(Locale.ROOT, "| %s (ops/µs) | %d | %.2f | %.2f | %.2f | %s | %s |%n", what,
                    threads, ours.opsPerMicro(), peer.opsPerMicro(), ratio,
                    Double.isNaN(goal) ? "-" : String.format(Locale.ROOT, "≥ %.2f", goal), Double.isNaN(goal) ? "-" : ratio >= goal ? "yes" : "no"));
        }

        /** A row of nanoseconds added; {@code target} says whether the 200 ns goal applies to it. */
        private static void overhead(StringBuilder md, String what, Score with, Score without, boolean target) {
            double added = with.nanosPerOp() - without.nanosPerOp();
            md.append(String.format(Locale.ROOT, "| %s | 1 | %.0f | %.0f | %+.0f ns | %s | %s |%n", what,
                    with.nanosPerOp(), without.nanosPerOp(), added, target ? "< 200 ns" : "-",
                    !target ? "-" : added < 200 ? "yes" : "no"));
        }
    }

    /** For tests: the names of every benchmark of the suite. */
    static List<String> expected() {
        return new ArrayList<>(List.of("InMemoryBenchmarks.oneLimitHotKey", "InMemoryBenchmarks.gatewayThreeLimits",
                "InMemoryBenchmarks.gatewayTenThousandKeys", "InMemoryBenchmarks.oneLimitTenThousandKeys", "InMemoryBenchmarks.refused",
                "InMemoryBenchmarks.refusedAttempt", "Peers.bucket4jHotKey",
                "Peers.bucket4jTenThousandKeys", "Peers.bucket4jGatewayHotKey",
                "Peers.bucket4jGatewayTenThousandKeys", "Peers.bucket4jRefused", "Peers.resilience4jHotKey",
                "SpringBenchmarks.rateLimitedMethod", "SpringBenchmarks.directAcquireAndMethod",
                "SpringBenchmarks.filter", "SpringBenchmarks.directAcquireAndChain",
                "SpringBenchmarks.filterOnMocks", "SpringBenchmarks.directAcquireAndChainOnMocks"));
    }
}
