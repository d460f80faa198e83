package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.RedisBenchmark.Figures;
import dev.zaelimiter.benchmarks.RedisBenchmark.Kind;
import dev.zaelimiter.benchmarks.RedisPeers.Side;
import dev.zaelimiter.benchmarks.RedisSaturationBenchmark.SideRun;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Run;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Settings;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Shape;
import dev.zaelimiter.store.redis.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs both Redis benchmarks in a tiny configuration on a Redis server of their own, asserting only what timing
 * cannot change: one round trip per decision for ours and two for bucket4j's from one thread, the clients' script
 * runs equal to the server's, and under saturation every call admitted or refused, admissions within capacity +
 * refill over the run's wall time for both, every command accounted for.
 */
@Timeout(300)
class RedisBenchmarkTest {

    private static final RedisBenchmark.Settings TINY = new RedisBenchmark.Settings(2, 40, 1, 5);
    private static final Settings TINY_SATURATION = new Settings(20, 5, 1500, 200, List.of(new Shape(2, 2)));

    private static RedisServer server;
    private static RedisBenchmark.Result result;
    private static List<SideRun> saturation;

    @BeforeAll
    static void runTiny() {
        server = RedisServer.start();
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        result = RedisBenchmark.run(server, TINY, quiet);
        saturation = RedisSaturationBenchmark.run(server, TINY_SATURATION, List.of(Side.OURS, Side.BUCKET4J), quiet);
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void oursDecidesInOneRoundTripAndBucket4jInTwo() {
        assertThat(result.kinds()).hasSize(4);
        for (Map.Entry<Kind, Figures> e : result.kinds().entrySet()) {
            Figures f = e.getValue();
            assertThat(f.errors).as("%s: %s", e.getKey(), f.firstError).isZero();
            assertThat(f.calls).isEqualTo((long) TINY.rounds() * TINY.calls());
            assertThat(f.admitted).as("limits that never run short").isEqualTo(f.calls);
            assertThat(f.latencies.count()).isEqualTo((int) f.calls);
            assertThat(f.commands).as(e.getKey().label())
                    .isEqualTo(e.getKey().side() == Side.OURS ? f.calls : 2 * f.calls);
        }
        assertThat(result.clientCommands().get(Side.OURS)).containsOnlyKeys("EVALSHA");
        assertThat(result.clientCommands().get(Side.BUCKET4J)).containsOnlyKeys("GET", "EVAL");
        assertThat(result.clientScriptRuns()).isEqualTo(result.serverScriptRuns());
        assertThat(result.serverTimes().get("EVALSHA").calls()).as("the server's time covers every run of ours")
                .isGreaterThanOrEqualTo(result.kinds().get(new Kind(Side.OURS, 1)).calls);
        assertThat(result.serverTimes()).containsKeys("GET", "EVAL");
        assertThat(RedisBenchmark.markdown(result)).contains("Server time per call", "| zae-limiter, 1 limit |", "| zae-limiter, 3 limits |",
                "| bucket4j-lettuce, 1 limit |", "| bucket4j-lettuce, 3 limits |");
    }

    @Test
    void underSaturationBothAdmitAtMostCapacityPlusRefillAndEveryCommandIsCounted() {
        assertThat(saturation).extracting(SideRun::side).containsExactly(Side.OURS, Side.BUCKET4J);
        for (SideRun sideRun : saturation) {
            Run run = sideRun.run();
            SaturationTally t = run.tally();
            assertThat(t.errors).as("%s: %s", sideRun.side(), t.firstError).isZero();
            assertThat(t.admitted + t.refused).isEqualTo(t.calls);
            assertThat(t.calls).isGreaterThanOrEqualTo(run.shape().totalThreads());
            assertThat(t.admitted).as("the fresh bucket admits the first call").isPositive();
            assertThat(t.admitted).as("%s over %d ms", sideRun.side(), run.elapsedMillis())
                    .isLessThanOrEqualTo(TINY_SATURATION.capacity()
                            + TINY_SATURATION.ratePerSecond() * run.elapsedMillis() / 1000);
            assertThat(t.requestsAdmitted + t.requestsRefused).isLessThanOrEqualTo(t.requests());
            assertThat(t.requestsAdmitted).as("at least one command per admission").isGreaterThanOrEqualTo(t.admitted);
            long scripts = t.operations.getOrDefault("EVALSHA", 0L) + t.operations.getOrDefault("EVAL", 0L);
            // the server also ran what ours sent after the run: the usage history its limiters flush when closed
            assertThat(sideRun.serverScriptRuns()).as("the server ran what the clients sent")
                    .isGreaterThanOrEqualTo(scripts);
            if (sideRun.side() == Side.BUCKET4J) {
                assertThat(sideRun.serverScriptRuns()).isEqualTo(scripts);
                assertThat(t.unattributed()).as("bucket4j sends nothing in the background").isZero();
            }
        }
        assertThat(RedisSaturationBenchmark.markdown(TINY_SATURATION, saturation)).contains(
                "| zae-limiter | 2 processes × 2 threads |", "| bucket4j-lettuce | 2 processes × 2 threads |");
    }
}
