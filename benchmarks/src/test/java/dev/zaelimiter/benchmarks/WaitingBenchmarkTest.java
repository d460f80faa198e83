package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.WaitingBenchmark.Call;
import dev.zaelimiter.benchmarks.WaitingBenchmark.Options;
import dev.zaelimiter.benchmarks.WaitingBenchmark.Plan;
import dev.zaelimiter.benchmarks.WaitingBenchmark.Result;
import dev.zaelimiter.store.dynamodb.Dynalite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting benchmark in a tiny configuration (two worker JVMs of two threads, one with priority), asserting only
 * what timing cannot change; and its measures on calls made up by hand.
 */
@Timeout(300)
class WaitingBenchmarkTest {

    @Test
    void everyCallIsReportedAndNoRunAdmitsMoreThanTheBound() {
        Options tiny = new Options(20, 1_000, 1_500, 200, List.of(Plan.parse("2x2p")));
        List<Result> results = WaitingBenchmark.run(Dynalite.get(), tiny,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        Result r = results.get(0);
        SaturationTally t = r.run().tally();
        assertThat(t.errors).as(t.firstError).isZero();
        assertThat(r.calls()).hasSize((int) t.calls);
        assertThat(r.calls().stream().filter(c -> c.outcome() == 1).count()).isEqualTo(t.admitted);
        assertThat(r.calls()).extracting(Call::process).contains(0, 1);
        assertThat(t.admitted).isPositive().isLessThanOrEqualTo(r.run().bound(tiny.settings()));
        assertThat(WaitingReport.markdown(tiny, results)).contains("2 processes × 2 threads, first process at high");
    }

    @Test
    void pairsOfProcessesThatWaitedTogetherCountAsOutOfOrderWhenTheLaterCameOutFirst() {
        List<Call> calls = List.of(
                new Call(0, 0, 100, 1, 1),
                new Call(1, 10, 50, 1, 1),       // came later, out first: swapped
                new Call(1, 20, 150, 1, 1),      // after the first: in order
                new Call(0, 30, 40, 1, 1),       // same process as the first: not counted against it
                new Call(0, 200, 300, 1, 1),     // waited with nobody
                new Call(1, 25, 35, 0, 1));      // refused: not a pair
        double[] order = WaitingReport.outOfOrder(calls);
        // pairs: (0,1@10) swapped, (0,1@20) in order, (1@10,0@30) swapped, (1@20,0@30) swapped
        assertThat(order[1]).isEqualTo(4);
        assertThat(order[0]).isEqualTo(0.75);
    }

    @Test
    void aProcessWithoutAdmissionsAfterTheOpeningSecondIsShutOutUntilItsNext() {
        List<Call> calls = List.of(
                new Call(0, 0, 500, 1, 1),
                new Call(1, 0, 1_200, 1, 1),
                new Call(1, 1_200, 4_000, 1, 1),
                new Call(0, 500, 5_000, 0, 1),
                new Call(0, 5_000, 5_500, 1, 1));
        assertThat(WaitingReport.longestWithoutAdmission(calls, 0)).isEqualTo(4_500);
        assertThat(WaitingReport.longestWithoutAdmission(calls, 1)).isEqualTo(2_800);
        assertThat(WaitingReport.highShare(calls)).isEqualTo(0.5);
    }
}
