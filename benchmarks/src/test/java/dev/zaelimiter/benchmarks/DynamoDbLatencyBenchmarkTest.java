package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.DynamoDbLatencyBenchmark.Calls;
import dev.zaelimiter.benchmarks.DynamoDbLatencyBenchmark.Kind;
import dev.zaelimiter.benchmarks.DynamoDbLatencyBenchmark.Result;
import dev.zaelimiter.benchmarks.DynamoDbLatencyBenchmark.Settings;
import dev.zaelimiter.store.dynamodb.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the latency benchmark in a tiny configuration (a short delay, a few rounds) so that the build proves it works.
 * It asserts only what timing cannot change: every call admitted, the decision's requests per call (one
 * {@code UpdateItem} per bucket, a read and a put for the baseline), the decision's request bytes (990 for one
 * limit before issue 27 made it smaller, {@code docs/dynamodb.md}), and that the proxy relayed every byte it read.
 */
class DynamoDbLatencyBenchmarkTest {

    private static final int ROUNDS = 12;

    private static Dynalite server;
    private static Result result;

    @BeforeAll
    static void runTiny() throws Exception {
        server = Dynalite.start();
        result = DynamoDbLatencyBenchmark.run(server, new Settings(200, ROUNDS, 3, 1),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyCallOfEveryKindIsAdmitted() {
        for (Kind kind : Kind.values()) {
            Calls c = result.calls().get(kind);
            assertThat(c.calls).as("%s", kind).isEqualTo(ROUNDS);
            assertThat(c.admitted).as("%s", kind).isEqualTo(ROUNDS);
            assertThat(c.measured.count()).isEqualTo(ROUNDS);
        }
    }

    @Test
    void eachBucketIsOneUpdateItemAndTheBaselineAReadAndAPut() {
        assertThat(writes(Kind.RAW)).containsEntry("UpdateItem", (long) ROUNDS);
        assertThat(writes(Kind.ONE)).containsEntry("UpdateItem", (long) ROUNDS).doesNotContainKey("GetItem");
        assertThat(writes(Kind.THREE)).containsEntry("UpdateItem", (long) ROUNDS).doesNotContainKey("GetItem");
        assertThat(writes(Kind.CASCADE)).containsEntry("UpdateItem", 2L * ROUNDS).doesNotContainKey("GetItem");
        assertThat(writes(Kind.READ_THEN_WRITE)).containsEntry("GetItem", (long) ROUNDS)
                .containsEntry("PutItem", (long) ROUNDS);
    }

    @Test
    void theDecisionsRequestIsAtMost700BytesForOneLimit() {
        Calls one = result.calls().get(Kind.ONE);
        assertThat(one.perCall(one.totals.requestBodyBytes())).isLessThanOrEqualTo(700);
    }

    @Test
    void theProxyRelayedEveryByteAndTimedEveryExchange() {
        DelayingProxy.Totals all = result.all();
        assertThat(all.relayedToServer()).isEqualTo(all.requestBytes()).isPositive();
        assertThat(all.relayedToClient()).isEqualTo(all.responseBytes()).isPositive();
        for (Kind kind : Kind.values()) {
            Calls c = result.calls().get(kind);
            assertThat(c.totals.serverNanos()).as("%s", kind).isPositive().isLessThan(c.totals.wireNanos());
        }
    }

    @Test
    void printsBothTables() {
        String markdown = DynamoDbLatencyBenchmark.markdown(result);
        for (Kind kind : Kind.values()) {
            assertThat(markdown).contains("| " + kind.label + " |");
        }
        assertThat(markdown).contains("Own share of a raw round trip");
    }

    private static Map<String, Long> writes(Kind kind) {
        return result.calls().get(kind).operations;
    }
}
