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
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The hot-bucket benchmark of {@code docs/performance.md} and {@code docs/hot-buckets.md}: one bucket of
 * {@code Limit.perSecond("rps", rate)} shared by several worker JVMs ({@link HotBucketWorker}) on one dynalite, real
 * clock; the same demand with and without {@link Limit#withLocalReservations()}, and a run below the limit for
 * latency. Per run: admitted per second against the limit, the most admitted in any one-second window and over the
 * run against capacity + rate x elapsed (every token counted when it was handed out, by the process that handed it
 * out), DynamoDB requests per admitted call, and per-call latency. Prints Markdown (progress goes to stderr).
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar hot-bucket [--rate=10000] [--processes=4] [--threads=4]
 *      [--over=1.3] [--under=0.5] [--run-ms=15000] [--warmup-ms=3000]
 * </pre>
 */
public final class HotBucketBenchmark {

    static final String TABLE = "zae-limiter-hot";
    static final String LIMIT = "rps";

    record Settings(long rate, int processes, int threads, double over, double under, long runMillis,
            long warmupMillis) {
    }

    /** One run's figures, merged over its workers. */
    record Run(String label, boolean reserving, double demand, long calls, long admitted, long refused, long errors,
            long missed, long requests, List<Long> p50Nanos, List<Long> p99Nanos, long elapsedMillis,
            long maxInOneSecond, String firstError) {

        double admittedPerSecond() {
            return admitted * 1000.0 / elapsedMillis;
        }
    }

    private HotBucketBenchmark() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Settings s = parse(args);
        long started = System.nanoTime();
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        List<Run> runs = new ArrayList<>();
        try (Dynalite server = Dynalite.start();
             DynamoDbClient client = server.client();
             DynamoDbStore store = DynamoDbStore.builder().client(client).table(TABLE).namespace("hot").build()) {
            store.createTableIfMissing();
            RateLimiter limiter = RateLimiter.builder().store(store).build();
            limiter.admin().setResourceDefaults("plain", List.of(Limit.perSecond(LIMIT, s.rate())));
            limiter.admin().setResourceDefaults("reserving",
                    List.of(Limit.perSecond(LIMIT, s.rate()).withLocalReservations()));
            runs.add(runOne(server, store, s, "without the option, demand above the limit", false,
                    s.rate() * s.over(), "hot-1"));
            runs.add(runOne(server, store, s, "with local reservations, demand above the limit", true,
                    s.rate() * s.over(), "hot-2"));
            runs.add(runOne(server, store, s, "with local reservations, demand below the limit", true,
                    s.rate() * s.under(), "hot-3"));
            System.out.printf(Locale.ROOT, "Hot bucket: Limit.perSecond(\"%s\", %d) (capacity %d), %d JVMs x %d"
                            + " threads, on dynalite %s (pid %d)%n%n", LIMIT, s.rate(), s.rate(), s.processes(),
                    s.threads(), server.version(), server.pid());
        }
        System.out.printf(Locale.ROOT, "Java %s, %d available processors, %s %s, AWS SDK %s; runs of %d ms after"
                        + " %d ms of warm-up; load average %.1f before, %.1f after; %.0f s in all%n%n",
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"), System.getProperty("os.arch"), VersionInfo.SDK_VERSION,
                s.runMillis(), s.warmupMillis(), loadBefore,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                (System.nanoTime() - started) / 1e9);
        System.out.print(markdown(s, runs));
    }

    static String markdown(Settings s, List<Run> runs) {
        StringBuilder out = new StringBuilder();
        out.append("| run | demand sent (calls/s) | admitted/s | of the limit | admitted / bound over the run"
                + " | most in any 1 s (bound) | requests per admitted call | p50 per call | p99 per call"
                + " | refused | errors |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Run r : runs) {
            long bound = s.rate() + s.rate() * r.elapsedMillis() / 1000;
            out.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.1f%% | %d / %d | %d (%d) | %.4f | %s | %s"
                            + " | %d | %d |%n", r.label(), r.calls() * 1000.0 / r.elapsedMillis(),
                    r.admittedPerSecond(), 100.0 * r.admittedPerSecond() / s.rate(), r.admitted(), bound,
                    r.maxInOneSecond(), 2 * s.rate(), r.admitted() == 0 ? 0 : (double) r.requests() / r.admitted(),
                    range(r.p50Nanos()), range(r.p99Nanos()), r.refused(), r.errors()));
        }
        if (runs.size() >= 2 && runs.get(0).admitted() > 0) {
            out.append(String.format(Locale.ROOT, "%nWith the option, admitted/s is %.1fx the run without it.%n",
                    runs.get(1).admittedPerSecond() / runs.get(0).admittedPerSecond()));
        }
        for (Run r : runs) {
            if (r.firstError() != null) {
                out.append("\nFirst error (").append(r.label()).append("): ").append(r.firstError()).append('\n');
            }
        }
        return out.toString();
    }

    /** The range of the workers' figures, in milliseconds. */
    private static String range(List<Long> nanos) {
        long min = nanos.stream().mapToLong(Long::longValue).min().orElse(0);
        long max = nanos.stream().mapToLong(Long::longValue).max().orElse(0);
        return String.format(Locale.ROOT, "%.3f–%.3f ms", min / 1e6, max / 1e6);
    }

    static Settings parse(String[] args) {
        long rate = 10_000;
        int processes = 4;
        int threads = 4;
        double over = 1.3;
        double under = 0.5;
        long runMillis = 15_000;
        long warmupMillis = 3_000;
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            String value = kv.length == 2 ? kv[1] : "";
            switch (kv[0]) {
                case "--rate" -> rate = Long.parseLong(value);
                case "--processes" -> processes = Integer.parseInt(value);
                case "--threads" -> threads = Integer.parseInt(value);
                case "--over" -> over = Double.parseDouble(value);
                case "--under" -> under = Double.parseDouble(value);
                case "--run-ms" -> runMillis = Long.parseLong(value);
                case "--warmup-ms" -> warmupMillis = Long.parseLong(value);
                default -> throw new IllegalArgumentException("unknown option " + arg + "; see the class comment");
            }
        }
        return new Settings(rate, processes, threads, over, under, runMillis, warmupMillis);
    }

    private static Run runOne(Dynalite server, DynamoDbStore store, Settings s, String label, boolean reserving,
            double demand, String entity) {
        System.err.printf(Locale.ROOT, "%s: %.0f calls/s for %d ms%n", label, demand, s.runMillis());
        List<Process> workers = new ArrayList<>();
        int totalThreads = s.processes() * s.threads();
        try {
            for (int p = 0; p < s.processes(); p++) {
                workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                        HotBucketWorker.class.getName(),
                        "--endpoint=" + server.endpoint(), "--table=" + store.table(),
                        "--namespace=" + store.namespace(), "--entity=" + entity,
                        "--resource=" + (reserving ? "reserving" : "plain"),
                        "--threads=" + s.threads(), "--process-index=" + p, "--total-threads=" + totalThreads,
                        "--demand=" + demand, "--run-ms=" + s.runMillis(), "--warmup-ms=" + s.warmupMillis())
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process worker : workers) {
                BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(),
                        StandardCharsets.UTF_8));
                expect(out, "READY");
                outputs.add(out);
            }
            long startMillis = System.currentTimeMillis() + 300;
            for (Process worker : workers) {
                Writer in = new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8);
                in.write("GO " + startMillis + "\n");
                in.flush();
            }
            long calls = 0;
            long admitted = 0;
            long refused = 0;
            long errors = 0;
            long missed = 0;
            long requests = 0;
            long first = Long.MAX_VALUE;
            long last = 0;
            String firstError = null;
            List<Long> p50 = new ArrayList<>();
            List<Long> p99 = new ArrayList<>();
            TreeMap<Long, Long> handedOut = new TreeMap<>();
            for (BufferedReader out : outputs) {
                String[] r = expect(out, "RESULT ").split(" ");
                calls += Long.parseLong(r[1]);
                admitted += Long.parseLong(r[2]);
                refused += Long.parseLong(r[3]);
                errors += Long.parseLong(r[4]);
                missed += Long.parseLong(r[5]);
                requests += Long.parseLong(r[6]);
                p50.add(Long.parseLong(r[7]));
                p99.add(Long.parseLong(r[8]));
                first = Math.min(first, Long.parseLong(r[9]));
                last = Math.max(last, Long.parseLong(r[10]));
                if (firstError == null && !"-".equals(r[11])) {
                    firstError = r[11].replace('_', ' ');
                }
                String handout = expect(out, "HANDOUT").substring("HANDOUT".length()).trim();
                if (!handout.isEmpty()) {
                    for (String entry : handout.split(",")) {
                        String[] kv = entry.split(":");
                        handedOut.merge(Long.parseLong(kv[0]), Long.parseLong(kv[1]), Long::sum);
                    }
                }
            }
            for (Process worker : workers) {
                if (!worker.waitFor(60, TimeUnit.SECONDS) || worker.exitValue() != 0) {
                    throw new IllegalStateException("a hot-bucket worker did not exit cleanly");
                }
            }
            long from = Math.min(startMillis, first);
            long elapsed = Math.max(last, from) - from + 1;
            long handedTotal = handedOut.values().stream().mapToLong(Long::longValue).sum();
            if (handedTotal != admitted) {
                throw new IllegalStateException("hand-outs " + handedTotal + " != admitted " + admitted);
            }
            return new Run(label, reserving, demand, calls, admitted, refused, errors, missed, requests, p50, p99,
                    elapsed, maxInOneSecond(handedOut), firstError);
        } catch (IOException e) {
            throw new IllegalStateException("hot-bucket worker I/O failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            workers.forEach(w -> {
                if (w.isAlive()) {
                    w.destroyForcibly();
                }
            });
        }
    }

    /** The most tokens handed out in any window of 1,000 ms ([t, t + 999]). */
    static long maxInOneSecond(TreeMap<Long, Long> handedOut) {
        long max = 0;
        long sum = 0;
        List<Map.Entry<Long, Long>> entries = new ArrayList<>(handedOut.entrySet());
        int tail = 0;
        for (Map.Entry<Long, Long> head : entries) {
            sum += head.getValue();
            while (entries.get(tail).getKey() <= head.getKey() - 1000) {
                sum -= entries.get(tail).getValue();
                tail++;
            }
            max = Math.max(max, sum);
        }
        return max;
    }

    private static String expect(BufferedReader out, String prefix) throws IOException {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("a hot-bucket worker ended before printing " + prefix.trim());
    }
}
