package dev.zaelimiter.benchmarks;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import software.amazon.awssdk.core.util.VersionInfo;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * DynamoDB latency at a real round trip: one thread calls dynalite through a {@link DelayingProxy} (2 ms each way by
 * default), one call of every {@link Kind} per round in a seeded shuffled order, so that noise hits all kinds alike.
 * Per kind it reports the latency as measured and with the server's own time taken out (as the proxy times it), the
 * requests and bytes per call, and the client's own share: the call's time outside the proxy and the server.
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar dynamodb-latency [--delay-us=2000] [--rounds=2000]
 *      [--warmup-rounds=300] [--seed=27]
 * </pre>
 */
final class DynamoDbLatencyBenchmark {

    static final String TABLE = "zae-limiter-latency";
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** A limit so large that it never runs short. */
    static final long OPEN = 1_000_000_000L;

    /** What one call does. {@code limits}: the limits it decides on, over all its buckets. */
    enum Kind {
        RAW("raw conditional UpdateItem", 1),
        ONE("acquire, one limit", 1),
        THREE("acquire, three limits", 3),
        CASCADE("acquire, cascade (child + parent)", 2),
        READ_THEN_WRITE("read + conditional put", 1);

        final String label;
        final int limits;

        Kind(String label, int limits) {
            this.label = label;
            this.limits = limits;
        }
    }

    /** What to run. */
    record Settings(long delayMicros, int rounds, int warmupRounds, long seed) {

        static Settings standard() {
            return new Settings(2000, 2000, 300, 27);
        }
    }

    /** One kind's calls: latencies, what the proxy saw of each, and how many were admitted. */
    static final class Calls {
        final LatencyRecorder measured = new LatencyRecorder();
        final LatencyRecorder withoutServer = new LatencyRecorder();
        final LatencyRecorder own = new LatencyRecorder();
        final LatencyRecorder proxyAdded = new LatencyRecorder();
        final LatencyRecorder cpu = new LatencyRecorder();
        final Map<String, Long> operations = new TreeMap<>();
        DelayingProxy.Totals totals = new DelayingProxy.Totals(0, 0, 0, 0, 0, 0, 0, 0, 0);
        long calls;
        long admitted;

        double perCall(long count) {
            return calls == 0 ? 0 : (double) count / calls;
        }
    }

    /** A run's figures per kind, and what the proxy relayed in all. */
    record Result(Settings settings, Map<Kind, Calls> calls, DelayingProxy.Totals all) {
    }

    private DynamoDbLatencyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Settings settings = parse(args);
        long started = System.nanoTime();
        try (Dynalite server = Dynalite.start()) {
            Result result = run(server, settings, System.err);
            System.out.printf("DynamoDB latency through a proxy adding %d µs each way, on dynalite %s (pid %d)%n%n",
                    settings.delayMicros(), server.version(), server.pid());
            System.out.printf("Java %s, %d available processors, %s %s, AWS SDK %s; one thread, %d rounds of one call"
                            + " per kind in shuffled order (seed %d) after %d warm-up rounds; %.0f s in all%n%n",
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("os.name"), System.getProperty("os.arch"), VersionInfo.SDK_VERSION,
                    settings.rounds(), settings.seed(), settings.warmupRounds(), (System.nanoTime() - started) / 1e9);
            System.out.print(markdown(result));
        }
    }

    static Settings parse(String[] args) {
        Settings d = Settings.standard();
        long delay = d.delayMicros();
        int rounds = d.rounds();
        int warmup = d.warmupRounds();
        long seed = d.seed();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            String value = kv.length == 2 ? kv[1] : "";
            switch (kv[0]) {
                case "--delay-us" -> delay = Long.parseLong(value);
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--warmup-rounds" -> warmup = Integer.parseInt(value);
                case "--seed" -> seed = Long.parseLong(value);
                default -> throw new IllegalArgumentException("unknown option " + arg + "; see the class comment");
            }
        }
        return new Settings(delay, rounds, warmup, seed);
    }

    /** Runs {@code settings} against {@code server} through a new proxy; progress goes to {@code progress}. */
    static Result run(Dynalite server, Settings settings, PrintStream progress) throws Exception {
        try (DelayingProxy proxy = new DelayingProxy(server.endpoint(), settings.delayMicros());
             DynamoDbClient client = Dynalite.client(proxy.endpoint());
             DynamoDbStore store = DynamoDbStore.builder().client(client).table(TABLE).namespace("lat")
                     .requestTimeout(Duration.ofSeconds(10)).build()) {
            store.createTableIfMissing();
            // no usage flush: its background writes would land in whichever call is running
            RateLimiter limiter = RateLimiter.builder().store(store).onUnavailable(Unavailable.BLOCK)
                    .usageFlushInterval(Duration.ZERO).build();
            Map<Kind, Call> calls = calls(limiter, client);
            Random random = new Random(settings.seed());
            List<Kind> order = new ArrayList<>(List.of(Kind.values()));
            progress.printf("warm-up: %d rounds%n", settings.warmupRounds());
            for (int round = 0; round < settings.warmupRounds(); round++) {
                Collections.shuffle(order, random);
                for (Kind kind : order) {
                    calls.get(kind).call();
                }
            }
            progress.printf("measuring: %d rounds%n", settings.rounds());
            Map<Kind, Calls> figures = new EnumMap<>(Kind.class);
            for (Kind kind : Kind.values()) {
                figures.put(kind, new Calls());
            }
            for (int round = 0; round < settings.rounds(); round++) {
                Collections.shuffle(order, random);
                for (Kind kind : order) {
                    measure(calls.get(kind), figures.get(kind), proxy);
                }
            }
            return new Result(settings, figures, proxy.totals());
        }
    }

    /** One call; whether it was admitted. */
    interface Call {
        boolean call();
    }

    private static void measure(Call call, Calls into, DelayingProxy proxy) {
        Map<Long, Long> cpuBefore = cpu(proxy, null);
        DelayingProxy.Totals before = proxy.totals();
        Map<String, Long> operationsBefore = proxy.operations();
        long start = System.nanoTime();
        boolean admitted = call.call();
        long nanos = System.nanoTime() - start;
        DelayingProxy.Totals seen = proxy.totals().minus(before);
        RequestCounter.difference(proxy.operations(), operationsBefore)
                .forEach((k, v) -> into.operations.merge(k, v, Long::sum));
        long cpu = 0;
        for (Map.Entry<Long, Long> e : cpu(proxy, cpuBefore).entrySet()) {
            cpu += e.getValue();
        }
        into.cpu.record(cpu);
        into.measured.record(nanos);
        into.withoutServer.record(nanos - seen.serverNanos());
        into.own.record(nanos - seen.wireNanos());
        into.proxyAdded.record(seen.wireNanos() - seen.serverNanos());
        into.totals = sum(into.totals, seen);
        into.calls++;
        if (admitted) {
            into.admitted++;
        }
    }

    /**
     * The CPU time of every live thread of this JVM but the proxy's; with {@code before}, what each used since. The
     * client's own work, however loaded the machine: a thread waiting for its turn uses none.
     */
    private static Map<Long, Long> cpu(DelayingProxy proxy, Map<Long, Long> before) {
        long[] ids = THREADS.getAllThreadIds();
        long[] times = THREADS.getThreadCpuTime(ids);
        Map<Long, Long> cpu = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (times[i] >= 0 && !proxy.isProxyThread(ids[i])) {
                cpu.put(ids[i], before == null ? times[i] : times[i] - before.getOrDefault(ids[i], 0L));
            }
        }
        return cpu;
    }

    private static DelayingProxy.Totals sum(DelayingProxy.Totals a, DelayingProxy.Totals b) {
        return new DelayingProxy.Totals(a.exchanges() + b.exchanges(), a.requestBytes() + b.requestBytes(),
                a.requestBodyBytes() + b.requestBodyBytes(), a.responseBytes() + b.responseBytes(),
                a.responseBodyBytes() + b.responseBodyBytes(), a.wireNanos() + b.wireNanos(),
                a.serverNanos() + b.serverNanos(), a.relayedToServer() + b.relayedToServer(),
                a.relayedToClient() + b.relayedToClient());
    }

    private static Map<Kind, Call> calls(RateLimiter limiter, DynamoDbClient client) {
        limiter.admin().setResourceDefaults("one", List.of(Limit.perMinute("rpm", OPEN)));
        limiter.admin().setResourceDefaults("three", List.of(Limit.perMinute("rpm", OPEN),
                Limit.perMinute("tpm", OPEN), Limit.perDay("rpd", OPEN)));
        limiter.admin().setResourceDefaults("cascade", List.of(Limit.perMinute("rpm", OPEN)));
        limiter.admin().createEntity("org");
        limiter.admin().createEntity(Entity.of("user").withParent("org").withCascade(true));
        limiter.admin().setLimits("org", "cascade", List.of(Limit.perMinute("rpm", OPEN)));

        Map<Kind, Call> calls = new EnumMap<>(Kind.class);
        UpdateItemRequest raw = UpdateItemRequest.builder().tableName(TABLE)
                .key(Map.of("PK", AttributeValue.fromS("raw#k"), "SK", AttributeValue.fromS("#STATE")))
                .updateExpression("ADD n :a")
                .conditionExpression("attribute_not_exists(n) OR n < :c")
                .expressionAttributeValues(Map.of(":a", AttributeValue.fromN("1"),
                        ":c", AttributeValue.fromN(Long.toString(OPEN))))
                .build();
        calls.put(Kind.RAW, () -> {
            client.updateItem(raw);
            return true;
        });
        calls.put(Kind.ONE, acquire(limiter, AcquireRequest.of("e1", "one").consume("rpm", 1)));
        calls.put(Kind.THREE, acquire(limiter, AcquireRequest.of("e3", "three").consume("rpm", 1)
                .consume("tpm", 100).consume("rpd", 1)));
        calls.put(Kind.CASCADE, acquire(limiter, AcquireRequest.of("user", "cascade").consume("rpm", 1)));
        ReadThenWriteBaseline baseline = new ReadThenWriteBaseline(client, TABLE, "rtw", OPEN, OPEN, 60_000,
                Clock.systemUTC());
        Map<String, AttributeValue> key = baseline.key("k");
        calls.put(Kind.READ_THEN_WRITE, () -> baseline.tryConsume(key, 1));
        return calls;
    }

    private static Call acquire(RateLimiter limiter, AcquireRequest request) {
        return () -> {
            try (Lease lease = limiter.acquire(request)) {
                return true;
            } catch (RateLimitExceededException refused) {
                return false;
            }
        };
    }

    /** The Markdown tables of a run. */
    static String markdown(Result result) {
        Calls raw = result.calls().get(Kind.RAW);
        double rawP50 = raw.measured.quantile(0.50);
        double rawOwn = raw.own.quantile(0.50);
        StringBuilder out = new StringBuilder();
        out.append("| Call | Calls | Admitted | p50 ms | p99 ms | p50 / raw | p50 ms, server out | p99 ms, server out "
                + "| Requests / call | Of which | Request bytes / call | Request bytes / limit | Response bytes / call |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
        for (Kind kind : Kind.values()) {
            Calls c = result.calls().get(kind);
            double bytes = c.perCall(c.totals.requestBodyBytes());
            out.append(String.format(Locale.ROOT, "| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %s | %.0f "
                            + "| %.0f | %.0f |%n", kind.label, c.calls, c.admitted, ms(c.measured.quantile(0.50)),
                    ms(c.measured.quantile(0.99)), c.measured.quantile(0.50) / rawP50,
                    ms(c.withoutServer.quantile(0.50)), ms(c.withoutServer.quantile(0.99)),
                    c.perCall(c.totals.exchanges()), breakdown(c), bytes, bytes / kind.limits,
                    c.perCall(c.totals.responseBodyBytes())));
        }
        out.append('\n');
        out.append("| Call | Proxy added p50 ms | Client's own p50 ms | Own share of a raw round trip | Over raw's own "
                + "| Target | Client CPU p50 ms | CPU over raw's, share of a raw round trip |\n");
        out.append("|---|---:|---:|---:|---:|---|---:|---:|\n");
        double rawCpu = raw.cpu.quantile(0.50);
        for (Kind kind : Kind.values()) {
            Calls c = result.calls().get(kind);
            double own = c.own.quantile(0.50);
            double over = (own - rawOwn) / rawP50;
            double target = kind == Kind.CASCADE ? 0.10 : kind == Kind.ONE || kind == Kind.THREE ? 0.05 : Double.NaN;
            double cpu = c.cpu.quantile(0.50);
            out.append(String.format(Locale.ROOT, "| %s | %.2f | %.3f | %.1f%% | %.1f%% | %s | %.3f | %.1f%% |%n",
                    kind.label, ms(c.proxyAdded.quantile(0.50)), ms(own), 100 * own / rawP50, 100 * over,
                    Double.isNaN(target) ? "-" : String.format(Locale.ROOT, "≤ %.0f%%: %s", 100 * target,
                            over <= target ? "met" : "not met"), ms(cpu), 100 * (cpu - rawCpu) / rawP50));
        }
        out.append(String.format(Locale.ROOT, "%nThe proxy relayed %d of %d request bytes and %d of %d response bytes"
                        + " (headers included).%n", result.all().relayedToServer(), result.all().requestBytes(),
                result.all().relayedToClient(), result.all().responseBytes()));
        return out.toString();
    }

    private static String breakdown(Calls c) {
        StringJoiner parts = new StringJoiner(", ");
        c.operations.forEach((operation, count) ->
                parts.add(String.format(Locale.ROOT, "%s %.3f", operation, c.perCall(count))));
        return parts.toString();
    }

    private static double ms(double nanos) {
        return nanos / 1e6;
    }
}
