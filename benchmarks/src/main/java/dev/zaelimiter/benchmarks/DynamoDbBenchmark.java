package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.BenchmarkHarness.Result;
import dev.zaelimiter.benchmarks.BenchmarkHarness.Settings;
import dev.zaelimiter.store.dynamodb.Dynalite;
import software.amazon.awssdk.core.util.VersionInfo;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Our DynamoDB acquire against the read-then-conditional-write baseline, side by side on one dynalite in one run.
 * Prints Markdown tables (progress goes to stderr). See {@code docs/performance.md}. With {@code saturation} as the
 * first argument, runs {@link SaturationBenchmark} instead; with {@code waiting}, {@link WaitingBenchmark}; with
 * {@code hot-bucket}, {@link HotBucketBenchmark}; with
 * {@code jmh}, the in-memory JMH suite ({@link dev.zaelimiter.benchmarks.jmh.JmhSuite}); with {@code calls}, one of
 * its in-memory calls in a plain loop ({@link dev.zaelimiter.benchmarks.jmh.CallCount}); with {@code redis}, the Redis
 * store beside bucket4j's Lettuce backend ({@link RedisBenchmark}); with {@code redis-saturation}, both under
 * saturation ({@link RedisSaturationBenchmark}); with {@code dynamodb-latency}, calls of each kind through a delaying
 * proxy, as at a real round trip ({@link DynamoDbLatencyBenchmark}).
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar [--slice-ms=2500] [--rounds=5] [--warmup-ms=5000]
 *      [--scenario-warmup-ms=1000] [--threads=1,8] [--keys=1000] [--tight-rate=100] [--no-tight]
 *      [--stamp-ttl-s=60]
 * </pre>
 */
public final class DynamoDbBenchmark {

    private DynamoDbBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("saturation")) {
            SaturationBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("waiting")) {
            WaitingBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("jmh")) {
            dev.zaelimiter.benchmarks.jmh.JmhSuite.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("calls")) {
            dev.zaelimiter.benchmarks.jmh.CallCount.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("redis")) {
            RedisBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("redis-saturation")) {
            RedisSaturationBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("dynamodb-latency")) {
            DynamoDbLatencyBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("hot-bucket")) {
            HotBucketBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Settings settings = parse(args);
        long started = System.nanoTime();
        try (Dynalite server = Dynalite.start();
             BenchmarkHarness harness = new BenchmarkHarness(server, settings.stampTtl(), System.err)) {
            List<Result> results = harness.run(settings);
            System.out.printf("DynamoDB acquire, zae-limiter vs read + conditional put, on dynalite %s (pid %d)%n%n",
                    server.version(), server.pid());
            System.out.printf("Java %s, %d available processors, %s %s, AWS SDK %s; slices of %d ms x %d rounds per"
                            + " side, alternating; %.0f s in all%n%n",
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("os.name"), System.getProperty("os.arch"), VersionInfo.SDK_VERSION,
                    settings.sliceMillis(), settings.rounds(), (System.nanoTime() - started) / 1e9);
            System.out.print(Report.markdown(results));
        }
    }

    static Settings parse(String[] args) {
        Settings d = Settings.standard();
        int[] threads = d.threads();
        int keys = d.manyKeys();
        long warmup = d.warmupMillis();
        long scenarioWarmup = d.scenarioWarmupMillis();
        long slice = d.sliceMillis();
        int rounds = d.rounds();
        long tightRate = d.tightRatePerSecond();
        boolean tight = d.tight();
        Duration stampTtl = d.stampTtl();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            String value = kv.length == 2 ? kv[1] : "";
            switch (kv[0]) {
                case "--threads" -> threads = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--keys" -> keys = Integer.parseInt(value);
                case "--warmup-ms" -> warmup = Long.parseLong(value);
                case "--scenario-warmup-ms" -> scenarioWarmup = Long.parseLong(value);
                case "--slice-ms" -> slice = Long.parseLong(value);
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--tight-rate" -> tightRate = Long.parseLong(value);
                case "--no-tight" -> tight = false;
                case "--stamp-ttl-s" -> stampTtl = Duration.ofSeconds(Long.parseLong(value));
                default -> throw new IllegalArgumentException("unknown option " + arg + "; see the class comment");
            }
        }
        return new Settings(threads, keys, warmup, scenarioWarmup, slice, rounds, tightRate, tight, stampTtl);
    }
}
