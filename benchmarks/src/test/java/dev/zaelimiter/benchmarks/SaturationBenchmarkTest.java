package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.SaturationBenchmark.Run;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Settings;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Shape;
import dev.zaelimiter.store.dynamodb.Dynalite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the saturation benchmark in a tiny configuration (two worker JVMs, then one, about a second and a half each)
 * so that the build proves it works. Asserts only what timing cannot change: the counts add up, every thread calls
 * at least once, the first call on the fresh full bucket is admitted, admissions stay within capacity + rate x the
 * run's wall time, and every request is accounted for. Never how many calls fit in the run.
 */
@Timeout(300)
class SaturationBenchmarkTest {

    private static final Settings TINY = new Settings(20, 5, 1500, 200, List.of(new Shape(2, 2), new Shape(1, 2)));

    private static List<Run> runs;
    private static String markdown;

    @BeforeAll
    static void runTiny() {
        runs = SaturationBenchmark.run(Dynalite.get(), TINY,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        markdown = SaturationReport.markdown(TINY, runs);
    }

    @Test
    void everyCallIsAdmittedOrRefusedAndEveryThreadCalls() {
        assertThat(runs).extracting(Run::shape).containsExactlyElementsOf(TINY.runs());
        for (Run run : runs) {
            SaturationTally t = run.tally();
            assertThat(t.errors).as("%s: %s", run.shape(), t.firstError).isZero();
            assertThat(t.admitted + t.refused).isEqualTo(t.calls);
            assertThat(t.calls).isGreaterThanOrEqualTo(run.shape().totalThreads());
            // the bucket is fresh and full: whoever calls first is admitted
            assertThat(t.admitted).isPositive();
            assertThat(run.elapsedMillis()).isPositive();
        }
    }

    @Test
    void noRunAdmitsMoreThanCapacityPlusRefillOverItsWallTime() {
        for (Run run : runs) {
            assertThat(run.tally().admitted).as("%s over %d ms", run.shape(), run.elapsedMillis())
                    .isLessThanOrEqualTo(TINY.capacity() + TINY.ratePerSecond() * run.elapsedMillis() / 1000);
            assertThat(run.bound(TINY))
                    .isEqualTo(TINY.capacity() + TINY.ratePerSecond() * run.elapsedMillis() / 1000);
        }
    }

    @Test
    void everyRequestIsAttributedToTheCallThatSentIt() {
        for (Run run : runs) {
            SaturationTally t = run.tally();
            // what the calling threads sent is part of what the process sent (the rest is background work, if any)
            assertThat(t.requestsAdmitted + t.requestsRefused).isLessThanOrEqualTo(t.requests());
            assertThat(t.requestsAdmitted).isGreaterThanOrEqualTo(0);
            assertThat(t.requestsRefused).isGreaterThanOrEqualTo(0);
            assertThat(t.forcedReads()).isEqualTo(t.forcedAdmitted + t.forcedRefused)
                    .isLessThanOrEqualTo(t.operations.getOrDefault("GetItem", 0L));
            assertThat(t.forcedAdmitted).isLessThanOrEqualTo(t.requestsAdmitted);
            assertThat(t.forcedRefused).isLessThanOrEqualTo(t.requestsRefused);
        }
    }

    @Test
    void printsOneRowPerRunInBothTables() {
        assertThat(markdown).contains("| Run | Seconds | Calls |", "| Run | Requests | By operation |",
                "bound = capacity 20 + 20/s");
        assertThat(markdown.lines().filter(l -> l.startsWith("| 2 processes × 2 threads |"))).hasSize(2);
        assertThat(markdown.lines().filter(l -> l.startsWith("| 1 process × 2 threads |"))).hasSize(2);
    }

    @Test
    void aTallySurvivesItsTextLine() {
        SaturationTally t = runs.get(0).tally();
        SaturationTally copy = SaturationTally.parse(t.toLine());
        assertThat(copy.toLine()).isEqualTo(t.toLine());
        assertThat(copy.operations).isEqualTo(t.operations);
        SaturationTally withError = new SaturationTally();
        withError.firstError = "x = y, with spaces";
        assertThat(SaturationTally.parse(withError.toLine()).firstError).isEqualTo("x = y, with spaces");
    }

    @Test
    void parsesTheCommandLine() {
        Settings s = SaturationBenchmark.parse(new String[] {"--rate=10", "--demand-factor=3", "--run-ms=500",
                "--warmup-ms=0", "--runs=2x3,1x1"});
        assertThat(s).isEqualTo(new Settings(10, 3, 500, 0, List.of(new Shape(2, 3), new Shape(1, 1))));
        assertThat(s.demandPerSecond()).isEqualTo(30.0);
        assertThat(SaturationBenchmark.parse(new String[0])).isEqualTo(Settings.standard());
        assertThat(Settings.standard().runs()).containsExactly(new Shape(3, 4), new Shape(1, 12), new Shape(1, 4));
    }
}
