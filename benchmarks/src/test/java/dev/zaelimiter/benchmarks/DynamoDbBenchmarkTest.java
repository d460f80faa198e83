package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.BenchmarkHarness.Result;
import dev.zaelimiter.benchmarks.BenchmarkHarness.Settings;
import dev.zaelimiter.store.dynamodb.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the benchmark harness in a tiny configuration (a few hundred calls per side, a few seconds) so that the
 * build proves it works; the figures themselves come from the hand-run main class. Also holds the request counts
 * that do not depend on timing: steady state costs us exactly one UpdateItem and no read, the baseline a read and a
 * write.
 */
class DynamoDbBenchmarkTest {

    private static Dynalite server;
    private static List<Result> results;
    private static String markdown;

    @BeforeAll
    static void runTiny() {
        server = Dynalite.start();
        Settings tiny = new Settings(new int[] {1, 2}, 20, 300, 50, 150, 2, 5, true);
        try (BenchmarkHarness harness = new BenchmarkHarness(server,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
            results = harness.run(tiny);
        }
        markdown = Report.markdown(results);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void runsEveryScenarioForBothSidesWithoutErrors() {
        assertThat(results).hasSize(6);
        for (Result r : results) {
            assertThat(r.ours().decisions).as("%s ours", r.scenario()).isPositive();
            assertThat(r.baseline().decisions).as("%s baseline", r.scenario()).isPositive();
            assertThat(r.ours().errors + r.baseline().errors).as("%s errors: %s %s", r.scenario(),
                    r.ours().firstError, r.baseline().firstError).isZero();
            assertThat(r.ours().latencies.count()).isEqualTo((int) r.ours().decisions);
            assertThat(r.ours().micros(0.99)).isGreaterThanOrEqualTo(r.ours().micros(0.50)).isPositive();
        }
    }

    @Test
    void steadyStateIsOneUpdateItemForUsAndAReadPlusAWriteForTheBaseline() {
        for (Result r : results) {
            if (r.scenario().tight()) {
                continue;
            }
            assertThat(r.ours().admitted).isEqualTo(r.ours().decisions);
            assertThat(r.ours().requests).as("%s", r.scenario())
                    .isEqualTo(Map.of("UpdateItem", r.ours().decisions));
            assertThat(r.baseline().admitted).isEqualTo(r.baseline().decisions);
            assertThat(r.baseline().requests.get("GetItem")).isGreaterThanOrEqualTo(r.baseline().decisions);
            assertThat(r.baseline().requests.get("PutItem")).isGreaterThanOrEqualTo(r.baseline().decisions);
        }
    }

    @Test
    void anExhaustedLimitRefusesMostCallsOnBothSides() {
        for (Result r : results) {
            if (r.scenario().tight()) {
                assertThat(r.ours().admitted).isLessThan(r.ours().decisions);
                assertThat(r.baseline().admitted).isLessThan(r.baseline().decisions);
            }
        }
    }

    @Test
    void printsTheTablesAndTheRatios() {
        assertThat(markdown).contains("| Scenario | Threads | Implementation |", "zae-limiter",
                "read + conditional put", "p50 ours / baseline", "hot bucket", "20 buckets", "5/s limit");
        assertThat(markdown.lines().filter(l -> l.startsWith("| hot bucket |"))).hasSize(2 * 2 + 2);
    }

    @Test
    void parsesTheCommandLine() {
        Settings s = DynamoDbBenchmark.parse(new String[] {"--threads=2,4", "--keys=50", "--slice-ms=10",
                "--rounds=3", "--no-tight"});
        assertThat(s.threads()).containsExactly(2, 4);
        assertThat(s.manyKeys()).isEqualTo(50);
        assertThat(s.sliceMillis()).isEqualTo(10);
        assertThat(s.rounds()).isEqualTo(3);
        assertThat(s.tight()).isFalse();
    }
}
