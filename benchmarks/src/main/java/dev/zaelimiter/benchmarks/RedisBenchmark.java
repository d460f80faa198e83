package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.RedisPeers.LimitSpec;
import dev.zaelimiter.benchmarks.RedisPeers.Side;
import dev.zaelimiter.store.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Our Redis store beside bucket4j's Lettuce backend on one Redis server in one run, from one thread: round trips
 * (commands) per decision and latency percentiles, for one limit and for three, with limits so large that every call
 * is admitted (the steady state). Each round makes the same number of calls of each of the four kinds (two sides,
 * one or three limits) in a shuffled order, so that noise on the machine hits all four alike. Commands are counted
 * on each side's client ({@link RedisCommandCounter}) and the script runs checked against the server's
 * {@code INFO commandstats}. Prints Markdown tables (progress goes to stderr). See {@code docs/performance.md}.
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar redis [--rounds=20] [--calls=500] [--warmup-rounds=4]
 *      [--keys=100]
 * </pre>
 */
public final class RedisBenchmark {

    static final List<LimitSpec> ONE = List.of(new LimitSpec("rps", 1_000_000, Duration.ofSeconds(1)));
    static final List<LimitSpec> THREE = List.of(new LimitSpec("rps", 1_000_000, Duration.ofSeconds(1)),
            new LimitSpec("rpm", 60_000_000, Duration.ofMinutes(1)),
            new LimitSpec("rph", 3_600_000_000L, Duration.ofHours(1)));

    /** What to run: {@code calls} of each kind per round, over {@code keys} entities taken round-robin. */
    record Settings(int rounds, int calls, int warmupRounds, int keys) {

        /** The documented run: 40,000 measured calls. */
        static Settings standard() {
            return new Settings(20, 500, 4, 100);
        }
    }

    /** One side with one or three limits. */
    record Kind(Side side, int limits) {

        String label() {
            return side.label + ", " + limits + (limits == 1 ? " limit" : " limits");
        }
    }

    /** What the calls of one kind did. */
    static final class Figures {
        final LatencyRecorder latencies = new LatencyRecorder();
        long calls;
        long admitted;
        long commands;
        long errors;
        String firstError;

        double commandsPerCall() {
            return calls == 0 ? 0 : (double) commands / calls;
        }

        double micros(double q) {
            return latencies.quantile(q) / 1000.0;
        }
    }

    /**
     * The run's figures: per kind, and per side the client's commands by type and the server's script runs
     * ({@code EVALSHA} and {@code EVAL} calls in {@code INFO commandstats}) over the measured rounds.
     */
    record Result(Map<Kind, Figures> kinds, Map<Side, Map<String, Long>> clientCommands, long serverScriptRuns,
            Map<String, ServerTime> serverTimes) {

        long clientScriptRuns() {
            long runs = 0;
            for (Map<String, Long> byType : clientCommands.values()) {
                runs += byType.getOrDefault("EVALSHA", 0L) + byType.getOrDefault("EVAL", 0L);
            }
            return runs;
        }
    }

    /** A command's calls and the microseconds the server spent in them ({@code INFO commandstats}). */
    record ServerTime(long calls, long micros) {

        double microsPerCall() {
            return calls == 0 ? 0 : (double) micros / calls;
        }
    }

    private RedisBenchmark() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Settings settings = parse(args);
        long started = System.nanoTime();
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        try (RedisServer server = RedisServer.start()) {
            Result result = run(server, settings, System.err);
            System.out.printf(Locale.ROOT, "Redis: zae-limiter beside bucket4j-lettuce, one thread, on %s (pid %d)%n%n",
                    version(server), server.pid());
            System.out.printf(Locale.ROOT, "Java %s, %d available processors, %s %s; %d rounds of %d calls per kind"
                            + " after %d warm-up rounds, %d keys per kind; load average %.1f before, %.1f after;"
                            + " %.0f s in all%n%n",
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("os.name"), System.getProperty("os.arch"), settings.rounds(), settings.calls(),
                    settings.warmupRounds(), settings.keys(), loadBefore,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    (System.nanoTime() - started) / 1e9);
            System.out.print(markdown(result));
        }
    }

    static Settings parse(String[] args) {
        Settings d = Settings.standard();
        int rounds = d.rounds();
        int calls = d.calls();
        int warmupRounds = d.warmupRounds();
        int keys = d.keys();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            String value = kv.length == 2 ? kv[1] : "";
            switch (kv[0]) {
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--calls" -> calls = Integer.parseInt(value);
                case "--warmup-rounds" -> warmupRounds = Integer.parseInt(value);
                case "--keys" -> keys = Integer.parseInt(value);
                default -> throw new IllegalArgumentException("unknown option " + arg + "; see the class comment");
            }
        }
        return new Settings(rounds, calls, warmupRounds, keys);
    }

    static Result run(RedisServer server, Settings settings, PrintStream progress) {
        try (RedisPeers ours = new RedisPeers(Side.OURS, server.uri(), "zl");
             RedisPeers bucket4j = new RedisPeers(Side.BUCKET4J, server.uri(), "b4j");
             RedisClient admin = RedisClient.create(server.uri());
             StatefulRedisConnection<String, String> info = admin.connect()) {
            List<Kind> kinds = new ArrayList<>();
            Map<Kind, SaturationWorker.Decision[]> decisions = new HashMap<>();
            for (RedisPeers peers : List.of(ours, bucket4j)) {
                peers.declare("one", ONE);
                peers.declare("three", THREE);
                for (int limits : new int[] {1, 3}) {
                    Kind kind = new Kind(peers == ours ? Side.OURS : Side.BUCKET4J, limits);
                    SaturationWorker.Decision[] byKey = new SaturationWorker.Decision[settings.keys()];
                    for (int k = 0; k < byKey.length; k++) {
                        byKey[k] = peers.decision("user-" + k, limits == 1 ? "one" : "three");
                    }
                    kinds.add(kind);
                    decisions.put(kind, byKey);
                }
            }
            Map<Kind, RedisPeers> peersOf = new HashMap<>();
            kinds.forEach(k -> peersOf.put(k, k.side() == Side.OURS ? ours : bucket4j));
            Random random = new Random(26);
            Map<Kind, Figures> measured = new LinkedHashMap<>();
            kinds.forEach(k -> measured.put(k, new Figures()));
            progress.printf("warm-up: %d rounds%n", settings.warmupRounds());
            for (int r = 0; r < settings.warmupRounds(); r++) {
                round(kinds, decisions, peersOf, settings, random, null);
            }
            Map<Side, Map<String, Long>> before = Map.of(Side.OURS, ours.counter.snapshot(),
                    Side.BUCKET4J, bucket4j.counter.snapshot());
            String statsBefore = info.sync().info("commandstats");
            for (int r = 0; r < settings.rounds(); r++) {
                progress.printf("round %d of %d%n", r + 1, settings.rounds());
                round(kinds, decisions, peersOf, settings, random, measured);
            }
            String statsAfter = info.sync().info("commandstats");
            long serverScripts = serverScriptRuns(statsAfter) - serverScriptRuns(statsBefore);
            Map<Side, Map<String, Long>> clientCommands = new TreeMap<>();
            clientCommands.put(Side.OURS, RequestCounter.difference(ours.counter.snapshot(), before.get(Side.OURS)));
            clientCommands.put(Side.BUCKET4J, RequestCounter.difference(bucket4j.counter.snapshot(),
                    before.get(Side.BUCKET4J)));
            return new Result(measured, clientCommands, serverScripts,
                    serverTimes(statsBefore, statsAfter));
        }
    }

    private static void round(List<Kind> kinds, Map<Kind, SaturationWorker.Decision[]> decisions,
            Map<Kind, RedisPeers> peersOf, Settings settings, Random random, Map<Kind, Figures> measured) {
        List<Kind> order = new ArrayList<>();
        for (Kind kind : kinds) {
            order.addAll(Collections.nCopies(settings.calls(), kind));
        }
        Collections.shuffle(order, random);
        Map<Kind, Integer> next = new HashMap<>();
        for (Kind kind : order) {
            SaturationWorker.Decision[] byKey = decisions.get(kind);
            int key = next.merge(kind, 1, Integer::sum) % byKey.length;
            RedisCommandCounter.ThreadCount count = peersOf.get(kind).counter.thread();
            long commands = count.commands;
            long start = System.nanoTime();
            boolean admitted = false;
            RuntimeException error = null;
            try {
                admitted = byKey[key].decide();
            } catch (RuntimeException e) {
                error = e;
            }
            long took = System.nanoTime() - start;
            if (measured != null) {
                Figures f = measured.get(kind);
                f.latencies.record(took);
                f.calls++;
                f.commands += count.commands - commands;
                if (admitted) {
                    f.admitted++;
                }
                if (error != null) {
                    f.errors++;
                    if (f.firstError == null) {
                        f.firstError = error.toString();
                    }
                }
            }
        }
    }

    /** {@code EVALSHA} and {@code EVAL} calls in an {@code INFO commandstats} answer (scripts cannot call either). */
    static long serverScriptRuns(String commandstats) {
        long runs = 0;
        for (String line : commandstats.split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                runs += Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return runs;
    }

    /** Per command type, what the server spent between two {@code INFO commandstats} answers. */
    static Map<String, ServerTime> serverTimes(String before, String after) {
        Map<String, ServerTime> then = serverTimes(before);
        Map<String, ServerTime> times = new TreeMap<>();
        serverTimes(after).forEach((command, now) -> {
            ServerTime was = then.getOrDefault(command, new ServerTime(0, 0));
            if (now.calls() > was.calls()) {
                times.put(command, new ServerTime(now.calls() - was.calls(), now.micros() - was.micros()));
            }
        });
        return times;
    }

    private static Map<String, ServerTime> serverTimes(String commandstats) {
        Map<String, ServerTime> times = new TreeMap<>();
        for (String line : commandstats.split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':')).toUpperCase(Locale.ROOT);
                times.put(command, new ServerTime(field(line, "calls"), field(line, "usec")));
            }
        }
        return times;
    }

    private static long field(String line, String name) {
        int at = line.indexOf(name + "=") + name.length() + 1;
        int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at, end < 0 ? line.length() : end));
    }

    private static String version(RedisServer server) {
        try (RedisClient client = RedisClient.create(server.uri());
             StatefulRedisConnection<String, String> c = client.connect()) {
            for (String line : c.sync().info("server").split("\r?\n")) {
                if (line.startsWith("redis_version:")) {
                    return "Redis " + line.substring("redis_version:".length());
                }
            }
            return "Redis";
        }
    }

    static String markdown(Result result) {
        StringBuilder out = new StringBuilder();
        out.append("| Kind | Calls | Admitted | Errors | Commands / call | p50 µs | p99 µs | p50 vs bucket4j "
                + "(target ≤ 0.7) |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Map.Entry<Kind, Figures> e : result.kinds().entrySet()) {
            Kind kind = e.getKey();
            Figures f = e.getValue();
            String ratio = "";
            if (kind.side() == Side.OURS) {
                Figures peer = result.kinds().get(new Kind(Side.BUCKET4J, kind.limits()));
                double r = f.micros(0.5) / peer.micros(0.5);
                ratio = String.format(Locale.ROOT, "%.2f (%s)", r, r <= 0.7 ? "met" : "not met");
            }
            out.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %.3f | %.0f | %.0f | %s |%n", kind.label(),
                    f.calls, f.admitted, f.errors == 0 ? "0" : f.errors + " (" + f.firstError + ")",
                    f.commandsPerCall(), f.micros(0.5), f.micros(0.99), ratio));
        }
        out.append("\nCommands by type over the measured rounds (each side's client): ");
        List<String> sides = new ArrayList<>();
        result.clientCommands().forEach((side, byType) -> sides.add(side.label + " " + byType));
        out.append(String.join("; ", sides));
        out.append(String.format(Locale.ROOT, ". Script runs (EVALSHA + EVAL): %d counted by the clients, %d by the"
                + " server's INFO commandstats.%n", result.clientScriptRuns(), result.serverScriptRuns()));
        List<String> times = new ArrayList<>();
        result.serverTimes().forEach((command, time) -> times.add(String.format(Locale.ROOT, "%s %d calls, %.2f µs",
                command, time.calls(), time.microsPerCall())));
        out.append("\nServer time per call over the measured rounds (INFO commandstats usec_per_call; ours: EVALSHA,"
                + " bucket4j: GET + EVAL): ").append(String.join("; ", times)).append(".\n");
        return out.toString();
    }
}
