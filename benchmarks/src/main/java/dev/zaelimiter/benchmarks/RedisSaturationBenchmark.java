package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.RedisPeers.LimitSpec;
import dev.zaelimiter.benchmarks.RedisPeers.Side;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Run;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Settings;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Shape;
import dev.zaelimiter.store.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * One bucket ({@code rps}, capacity = rate) driven at a multiple of its rate by paced threads in worker JVMs
 * ({@link RedisSaturationWorker}), on one Redis server, with the real clock: ours and bucket4j's Lettuce backend, one
 * after the other, each on a fresh bucket. Per run: decisions against the bound capacity + rate x elapsed (the same
 * rule, from the same timestamps, for both), and commands per admitted and per refused call as each call's thread
 * counted them, with the server's script runs beside. Prints a Markdown table (progress goes to stderr).
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar redis-saturation [--rate=50] [--demand-factor=5]
 *      [--run-ms=10000] [--warmup-ms=3000] [--runs=3x4] [--sides=OURS,BUCKET4J]
 * </pre>
 */
public final class RedisSaturationBenchmark {

    /** The target under saturation: commands per refused call. */
    static final double REFUSED_TARGET = 0.1;

    /** One side's run, with the script runs ({@code EVALSHA} + {@code EVAL}) the server counted meanwhile. */
    record SideRun(Side side, Run run, long serverScriptRuns) {
    }

    private RedisSaturationBenchmark() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        List<Side> sides = List.of(Side.OURS, Side.BUCKET4J);
        List<String> rest = new ArrayList<>();
        boolean runsGiven = false;
        for (String arg : args) {
            if (arg.startsWith("--sides=")) {
                sides = Arrays.stream(arg.substring("--sides=".length()).split(",")).map(Side::valueOf).toList();
            } else {
                runsGiven |= arg.startsWith("--runs=");
                rest.add(arg);
            }
        }
        if (!runsGiven) {
            rest.add("--runs=3x4");
        }
        Settings settings = SaturationBenchmark.parse(rest.toArray(String[]::new));
        long started = System.nanoTime();
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (RedisServer server = RedisServer.start()) {
            List<SideRun> runs = run(server, settings, sides, System.err);
            System.out.printf(Locale.ROOT, "Redis saturation: one %d/s bucket (capacity %d) at %.0f calls/s, one Redis"
                            + " server (pid %d)%n%n", settings.ratePerSecond(), settings.capacity(),
                    settings.demandPerSecond(), server.pid());
            System.out.printf(Locale.ROOT, "Java %s, %d available processors; runs of %d ms after %d ms of warm-up;"
                            + " load average %.1f before, %.1f after; %.0f s in all%n%n",
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    settings.runMillis(), settings.warmupMillis(), loadBefore,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    (System.nanoTime() - started) / 1e9);
            System.out.print(markdown(settings, runs));
        }
    }

    /** Every run of {@code settings} for each of {@code sides}, each on a fresh bucket, on {@code server}. */
    static List<SideRun> run(RedisServer server, Settings settings, List<Side> sides, PrintStream progress) {
        List<LimitSpec> limits = List.of(new LimitSpec(SaturationBenchmark.LIMIT, settings.ratePerSecond(),
                Duration.ofSeconds(1)));
        List<SideRun> runs = new ArrayList<>();
        try (RedisClient client = RedisClient.create(server.uri());
             StatefulRedisConnection<String, String> info = client.connect()) {
            for (Side side : sides) {
                String prefix = side == Side.OURS ? "zl" : "b4j";
                try (RedisPeers declaring = new RedisPeers(side, server.uri(), prefix)) {
                    declaring.declare(SaturationBenchmark.RESOURCE, limits);
                }
                for (int i = 0; i < settings.runs().size(); i++) {
                    Shape shape = settings.runs().get(i);
                    progress.printf(Locale.ROOT, "%s, run %d: %s at %.0f calls/s for %d ms%n", side.label, i + 1,
                            shape.label(), settings.demandPerSecond(), settings.runMillis());
                    long[] before = new long[1];
                    Run run = SaturationBenchmark.runWorkers(settings, shape, RedisSaturationWorker.class,
                            List.of("--side=" + side, "--uri=" + server.uri(), "--prefix=" + prefix,
                                    "--entity=sat-" + (i + 1), "--rate=" + settings.ratePerSecond()),
                            process -> List.of(), line -> { },
                            () -> before[0] = RedisBenchmark.serverScriptRuns(info.sync().info("commandstats")));
                    long scripts = RedisBenchmark.serverScriptRuns(info.sync().info("commandstats")) - before[0];
                    runs.add(new SideRun(side, run, scripts));
                }
            }
        }
        return runs;
    }

    static String markdown(Settings settings, List<SideRun> runs) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Bound = capacity %d + %d/s × seconds, from each run's own timestamps;"
                + " commands as each call's thread sent them:%n%n", settings.capacity(), settings.ratePerSecond()));
        out.append("| Limiter | Run | Seconds | Calls | × rate | Admitted | Refused | Errors | Bound "
                + "| Admitted ≤ bound | Commands by type | Server script runs | Commands / admitted "
                + "| Commands / refused (target ≤ " + REFUSED_TARGET + ") |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|\n");
        for (SideRun sideRun : runs) {
            Run run = sideRun.run();
            SaturationTally t = run.tally();
            long bound = run.bound(settings);
            double refused = per(t.requestsRefused, t.refused + t.errors);
            out.append(String.format(Locale.ROOT,
                    "| %s | %s | %.2f | %d | %.1f | %d | %d | %s | %d | %s | %s | %d | %.2f | %.2f (%s) |%n",
                    sideRun.side().label, run.shape().label(), run.seconds(), t.calls,
                    t.calls / run.seconds() / settings.ratePerSecond(), t.admitted, t.refused,
                    t.errors == 0 ? "0" : t.errors + " (" + t.firstError + ")", bound,
                    t.admitted <= bound ? "yes" : "**no**, " + (t.admitted - bound) + " over", byType(t),
                    sideRun.serverScriptRuns(), per(t.requestsAdmitted, t.admitted), refused,
                    refused <= REFUSED_TARGET ? "met" : "not met"));
        }
        return out.toString();
    }

    private static String byType(SaturationTally t) {
        StringJoiner parts = new StringJoiner(", ");
        t.operations.forEach((type, count) -> parts.add(type + " " + count));
        if (t.unattributed() != 0) {
            parts.add("(of which " + t.unattributed() + " off the calling threads)");
        }
        return parts.toString();
    }

    private static double per(long count, long calls) {
        return calls == 0 ? 0 : (double) count / calls;
    }
}
