package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.RedisPeers.LimitSpec;
import dev.zaelimiter.benchmarks.RedisPeers.Side;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One process of the Redis saturation benchmark ({@link RedisSaturationBenchmark} starts it): one side's limiter on
 * a client of its own, warmed up on a bucket of this process's own, then driven as {@link SaturationWorker#measure}
 * does; prints {@code RESULT <tally>} with the commands each call sent on its thread.
 */
public final class RedisSaturationWorker {

    private RedisSaturationWorker() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Map<String, String> a = SaturationWorker.options(args);
        Side side = Side.valueOf(a.get("side"));
        String entity = a.get("entity");
        List<LimitSpec> limits = List.of(new LimitSpec(SaturationBenchmark.LIMIT, Long.parseLong(a.get("rate")),
                Duration.ofSeconds(1)));
        try (RedisPeers peers = new RedisPeers(side, a.get("uri"), a.get("prefix"))) {
            peers.know(SaturationBenchmark.RESOURCE, limits);
            SaturationWorker.warmUp(peers.decision("warm-" + entity + "-" + a.get("process-index"),
                    SaturationBenchmark.RESOURCE), a);
            peers.prepare(entity, SaturationBenchmark.RESOURCE);
            Map<String, Long> before = peers.counter.snapshot();
            SaturationTally total = SaturationWorker.measure(a, peers.decision(entity, SaturationBenchmark.RESOURCE),
                    peers.counter::thread);
            total.operations.putAll(RequestCounter.difference(peers.counter.snapshot(), before));
            System.out.println("RESULT " + total.toLine());
            System.out.flush();
        }
        System.exit(0);
    }
}
