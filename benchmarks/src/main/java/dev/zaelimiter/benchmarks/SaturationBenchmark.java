package dev.zaelimiter.benchmarks;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import software.amazon.awssdk.core.util.VersionInfo;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The saturation benchmark of {@code docs/performance.md}: one bucket ({@code Limit.perSecond("rps", rate)}) driven
 * at a multiple of its rate by paced threads spread over one or more worker JVMs ({@link SaturationWorker}), on one
 * dynalite, with the real clock. Per run it reports decisions by outcome against the bound capacity + rate x elapsed,
 * and the DynamoDB requests by operation and per admitted and per refused call, with and without the reads that only
 * dynalite forces (see {@link RequestCounter}). Prints Markdown tables (progress goes to stderr).
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar saturation [--rate=50] [--demand-factor=5]
 *      [--run-ms=10000] [--warmup-ms=3000] [--runs=3x4,1x12,1x4]
 * </pre>
 */
public final class SaturationBenchmark {

    static final String TABLE = "zae-limiter-saturation";
    static final String RESOURCE = "saturated";
    static final String LIMIT = "rps";

    /** {@code processes} worker JVMs of {@code threads} threads each. */
    record Shape(int processes, int threads) {

        static Shape parse(String text) {
            String[] pt = text.trim().split("x", 2);
            if (pt.length != 2) {
                throw new IllegalArgumentException("a run is PROCESSESxTHREADS, e.g. 3x4; got " + text);
            }
            return new Shape(Integer.parseInt(pt[0]), Integer.parseInt(pt[1]));
        }

        int totalThreads() {
            return processes * threads;
        }

        String label() {
            return processes + (processes == 1 ? " process" : " processes") + " × " + threads
                    + (threads == 1 ? " thread" : " threads");
        }
    }

    /** What to run. The bucket's capacity equals its rate (one second's worth). */
    record Settings(long ratePerSecond, double demandFactor, long runMillis, long warmupMillis, List<Shape> runs) {

        /** The documented run: about 45 s. */
        static Settings standard() {
            return new Settings(50, 5, 10_000, 3_000,
                    List.of(new Shape(3, 4), new Shape(1, 12), new Shape(1, 4)));
        }

        double demandPerSecond() {
            return ratePerSecond * demandFactor;
        }

        long capacity() {
            return ratePerSecond;
        }
    }

    /**
     * One run: what its workers did, merged. {@code elapsedMillis} runs from the earlier of the agreed start and the
     * first call's start to the last call's end, plus a millisecond for the clock's truncation: no admission of the
     * run can fall outside it.
     */
    record Run(Shape shape, SaturationTally tally, long elapsedMillis) {

        /** The most a correct limiter can have admitted: capacity + rate x elapsed (the bucket starts full). */
        long bound(Settings settings) {
            return settings.capacity() + settings.ratePerSecond() * elapsedMillis / 1000;
        }

        double seconds() {
            return elapsedMillis / 1000.0;
        }
    }

    private SaturationBenchmark() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Settings settings = parse(args);
        long started = System.nanoTime();
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (Dynalite server = Dynalite.start()) {
            List<Run> runs = run(server, settings, System.err);
            System.out.printf(Locale.ROOT, "Saturation: one %d/s bucket (capacity %d) at %.0f calls/s, on dynalite %s"
                            + " (pid %d)%n%n", settings.ratePerSecond(), settings.capacity(),
                    settings.demandPerSecond(), server.version(), server.pid());
            System.out.printf(Locale.ROOT, "Java %s, %d available processors, %s %s, AWS SDK %s; runs of %d ms after"
                            + " %d ms of warm-up; load average %.1f before, %.1f after; %.0f s in all%n%n",
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("os.name"), System.getProperty("os.arch"), VersionInfo.SDK_VERSION,
                    settings.runMillis(), settings.warmupMillis(), loadBefore,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    (System.nanoTime() - started) / 1e9);
            System.out.print(SaturationReport.markdown(settings, runs));
        }
    }

    static Settings parse(String[] args) {
        Settings d = Settings.standard();
        long rate = d.ratePerSecond();
        double factor = d.demandFactor();
        long runMillis = d.runMillis();
        long warmupMillis = d.warmupMillis();
        List<Shape> runs = d.runs();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            String value = kv.length == 2 ? kv[1] : "";
            switch (kv[0]) {
                case "--rate" -> rate = Long.parseLong(value);
                case "--demand-factor" -> factor = Double.parseDouble(value);
                case "--run-ms" -> runMillis = Long.parseLong(value);
                case "--warmup-ms" -> warmupMillis = Long.parseLong(value);
                case "--runs" -> runs = Arrays.stream(value.split(",")).map(Shape::parse).toList();
                default -> throw new IllegalArgumentException("unknown option " + arg + "; see the class comment");
            }
        }
        return new Settings(rate, factor, runMillis, warmupMillis, runs);
    }

    /** Every run of {@code settings}, each on a fresh bucket, on {@code server}. */
    static List<Run> run(Dynalite server, Settings settings, PrintStream progress) {
        try (DynamoDbClient client = server.client();
             DynamoDbStore store = DynamoDbStore.builder().client(client).table(TABLE).namespace("sat").build()) {
            store.createTableIfMissing();
            RateLimiter limiter = RateLimiter.builder().store(store).build();
            limiter.admin().setResourceDefaults(RESOURCE, List.of(Limit.perSecond(LIMIT, settings.ratePerSecond())));
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < settings.runs().size(); i++) {
                Shape shape = settings.runs().get(i);
                progress.printf(Locale.ROOT, "run %d: %s at %.0f calls/s for %d ms%n", i + 1, shape.label(),
                        settings.demandPerSecond(), settings.runMillis());
                runs.add(runOne(server, store, settings, shape, "sat-" + (i + 1), p -> List.of(), line -> { }));
            }
            return runs;
        }
    }

    /**
     * One run of {@code shape} on a fresh bucket named by {@code entity}: each worker also gets {@code extra} arguments
     * for its index, and every other line a worker prints before its tally goes to {@code lines}.
     */
    static Run runOne(Dynalite server, DynamoDbStore store, Settings settings, Shape shape, String entity,
            IntFunction<List<String>> extra, Consumer<String> lines) {
        return runWorkers(settings, shape, SaturationWorker.class, List.of("--endpoint=" + server.endpoint(),
                "--table=" + store.table(), "--namespace=" + store.namespace(), "--entity=" + entity), extra, lines,
                () -> { });
    }

    /**
     * One run of {@code shape}: as many JVMs of {@code workerClass} (a main class that follows
     * {@link SaturationWorker#measure}'s protocol) with {@code options}, each worker's {@code extra} and the run's own,
     * started together; {@code atStart} runs once every worker is ready, just before the start is sent (a snapshot of
     * server counters); the lines a worker prints before its tally go to {@code lines}.
     */
    static Run runWorkers(Settings settings, Shape shape, Class<?> workerClass, List<String> options,
            IntFunction<List<String>> extra, Consumer<String> lines, Runnable atStart) {
        List<Process> workers = new ArrayList<>();
        long deadline = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(settings.warmupMillis() + settings.runMillis()) + 120_000_000_000L;
        try {
            for (int p = 0; p < shape.processes(); p++) {
                List<String> command = new ArrayList<>(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                        workerClass.getName()));
                command.addAll(options);
                command.addAll(List.of("--threads=" + shape.threads(), "--process-index=" + p,
                        "--total-threads=" + shape.totalThreads(),
                        "--demand=" + settings.demandPerSecond(), "--run-ms=" + settings.runMillis(),
                        "--warmup-ms=" + settings.warmupMillis()));
                command.addAll(extra.apply(p));
                workers.add(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            Thread watchdog = watchdog(workers, deadline);
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process worker : workers) {
                BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(),
                        StandardCharsets.UTF_8));
                expect(out, "READY", line -> { });
                outputs.add(out);
            }
            atStart.run();
            // a moment ahead, so that every worker has the line before the start
            long startMillis = System.currentTimeMillis() + 200;
            for (Process worker : workers) {
                Writer in = new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8);
                in.write("GO " + startMillis + "\n");
                in.flush();
            }
            SaturationTally total = new SaturationTally();
            for (BufferedReader out : outputs) {
                total.merge(SaturationTally.parse(expect(out, "RESULT ", lines).substring("RESULT ".length())));
            }
            for (Process worker : workers) {
                if (!worker.waitFor(30, TimeUnit.SECONDS) || worker.exitValue() != 0) {
                    throw new IllegalStateException("a saturation worker did not exit cleanly");
                }
            }
            watchdog.interrupt();
            long from = total.firstStartMillis == 0 ? startMillis : Math.min(startMillis, total.firstStartMillis);
            long elapsed = Math.max(total.lastEndMillis, from) - from + 1;
            return new Run(shape, total, elapsed);
        } catch (IOException e) {
            throw new IllegalStateException("saturation worker I/O failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            for (Process worker : workers) {
                if (worker.isAlive()) {
                    worker.destroyForcibly();
                }
            }
        }
    }

    /** The first line of {@code out} that starts with {@code prefix}; the lines before it go to {@code others}. */
    private static String expect(BufferedReader out, String prefix, Consumer<String> others) throws IOException {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith(prefix)) {
                return line;
            }
            others.accept(line);
        }
        throw new IllegalStateException("a saturation worker ended before printing " + prefix.trim());
    }

    /** Ends the workers if the run is still going at {@code deadline} (a hung worker must not hang the benchmark). */
    private static Thread watchdog(List<Process> workers, long deadline) {
        Thread watchdog = new Thread(() -> {
            try {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, deadline - System.nanoTime()));
                workers.forEach(Process::destroyForcibly);
            } catch (InterruptedException done) {
                // the run ended in time
            }
        }, "saturation-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        return watchdog;
    }
}
