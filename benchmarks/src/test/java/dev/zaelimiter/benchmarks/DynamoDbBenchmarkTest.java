package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.BenchmarkHarness.Result;
import dev.zaelimiter.benchmarks.BenchmarkHarness.Settings;
import dev.zaelimiter.benchmarks.BenchmarkHarness.Side;
import dev.zaelimiter.store.dynamodb.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the benchmark harness in a tiny configuration (a few hundred calls per side, a few seconds) so that the
 * build proves it works; the figures themselves come from the hand-run main class. It asserts only what the speed of
 * the machine cannot change: counts that add up, the request cost of each decision in steady state (for us exactly
 * one UpdateItem and no read from one thread, and from several threads one successful UpdateItem per call plus, for
 * each guess another thread's write made wrong, one refused UpdateItem and the read dynalite forces; a read and a
 * write for the baseline), and that an exhausted limit never admits more
 * than its capacity plus its refill over the scenario's whole wall time. It never asserts how many calls fit in a
 * time slice: a loaded machine may run only a handful.
 */
class DynamoDbBenchmarkTest {

    /** Tight limit of the tiny run, per second; its capacity is the same. */
    private static final long TIGHT_RATE = 5;

    private static Dynalite server;
    private static List<Result> results;
    private static String markdown;

    @BeforeAll
    static void runTiny() {
        server = Dynalite.start();
        // a stamp TTL longer than any run, so that a slow machine never sees the once-per-TTL refresh in the counts
        Settings tiny = new Settings(new int[] {1, 2}, 20, 300, 50, 150, 2, TIGHT_RATE, true, Duration.ofHours(1));
        try (BenchmarkHarness harness = new BenchmarkHarness(server, tiny.stampTtl(),
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
            for (Side side : List.of(r.ours(), r.baseline())) {
                // every thread makes at least one call in each of the 2 measured slices, however slow the machine
                assertThat(side.decisions).as("%s %s", r.scenario(), side.implementation)
                        .isGreaterThanOrEqualTo(2L * r.scenario().threads());
                assertThat(side.errors).as("%s %s errors: %s", r.scenario(), side.implementation, side.firstError)
                        .isZero();
                assertThat(side.admitted).isBetween(0L, side.decisions);
                assertThat(side.latencies.count()).isEqualTo((int) side.decisions);
                assertThat(side.micros(0.99)).isGreaterThanOrEqualTo(side.micros(0.50)).isPositive();
            }
        }
    }

    @Test
    void steadyStateIsOneUpdateItemForUsAndAReadPlusAWriteForTheBaseline() {
        for (Result r : results) {
            if (r.scenario().tight()) {
                continue;
            }
            assertThat(r.ours().admitted).isEqualTo(r.ours().decisions);
            Map<String, Long> ours = r.ours().requests;
            if (r.scenario().threads() == 1) {
                assertThat(ours).as("%s", r.scenario()).isEqualTo(Map.of("UpdateItem", r.ours().decisions));
            } else {
                // how many guesses a concurrent write makes wrong depends on timing; what each one costs does not
                long refused = ours.getOrDefault("ConditionalCheckFailed", 0L);
                assertThat(ours.get("UpdateItem") - refused).as("%s", r.scenario()).isEqualTo(r.ours().decisions);
                assertThat(ours.getOrDefault("GetItem", 0L)).isEqualTo(refused);
                assertThat(ours.getOrDefault("GetItem forced by the server", 0L)).isEqualTo(refused);
                assertThat(ours).doesNotContainKey("PutItem");
            }
            assertThat(r.baseline().admitted).isEqualTo(r.baseline().decisions);
            assertThat(r.baseline().requests.get("GetItem")).isGreaterThanOrEqualTo(r.baseline().decisions);
            assertThat(r.baseline().requests.get("PutItem")).isGreaterThanOrEqualTo(r.baseline().decisions);
        }
    }

    @Test
    void anExhaustedLimitNeverAdmitsMoreThanCapacityPlusRefillOnEitherSide() {
        for (Result r : results) {
            if (r.scenario().tight()) {
                // each side's bucket starts the scenario at most full; the span covers warm-up and measured slices
                long bound = TIGHT_RATE + TIGHT_RATE * r.spanMillis() / 1000;
                assertThat(r.ours().admitted).as("%s ours over %d ms", r.scenario(), r.spanMillis())
                        .isLessThanOrEqualTo(bound);
                assertThat(r.baseline().admitted).as("%s baseline over %d ms", r.scenario(), r.spanMillis())
                        .isLessThanOrEqualTo(bound);
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
                "--rounds=3", "--no-tight", "--stamp-ttl-s=600"});
        assertThat(s.threads()).containsExactly(2, 4);
        assertThat(s.manyKeys()).isEqualTo(50);
        assertThat(s.sliceMillis()).isEqualTo(10);
        assertThat(s.rounds()).isEqualTo(3);
        assertThat(s.tight()).isFalse();
        assertThat(s.stampTtl()).isEqualTo(Duration.ofMinutes(10));
    }
}
