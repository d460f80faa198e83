package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.FullAt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three JVMs with four threads each on one limit with local reservations, on the real clock: each bursts (and so
 * reserves a batch), the bucket goes idle for a while, then all of them burst again. Every token is counted at the
 * instant the limiter handed it out, by the process that handed it out; over every window, the admitted total never
 * exceeds the capacity plus what the limit credited in that window, and the held batches all come back on close.
 */
@Timeout(300)
class DynamoDbReservationsMultiProcessTest {

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    /** 200 tokens, 100 per second: a burst after an idle second meets a bucket that is full but for what is held. */
    private static final Limit LIMIT = Limit.custom("r", 200, 100, Duration.ofSeconds(1)).withLocalReservations();

    @Test
    void afterAnIdleSpellProcessesHoldingBatchesAdmitNoMoreThanCapacityPlusRefillInAnyWindow() throws Exception {
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), Clock.systemUTC());
        RateLimiter limiter = RateLimiter.builder().store(store).build();
        limiter.admin().setResourceDefaults("api", List.of(LIMIT));

        List<Process> workers = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), ReservationWorker.class.getName(),
                    Dynalite.get().endpoint().toString(), store.table(), store.namespace(),
                    Integer.toString(THREADS), "2000")
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }
        try {
            List<BufferedReader> outputs = new ArrayList<>();
            List<Writer> inputs = new ArrayList<>();
            for (Process worker : workers) {
                BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(),
                        StandardCharsets.UTF_8));
                assertThat(out.readLine()).isEqualTo("READY");
                outputs.add(out);
                inputs.add(new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8));
            }
            tell(inputs, "WARM");
            for (BufferedReader out : outputs) {
                assertThat(out.readLine()).isEqualTo("WARMED");
            }
            long warmedAt = System.currentTimeMillis();
            while (System.currentTimeMillis() - warmedAt < 800) {      // idle on the real clock, batches held
                Thread.sleep(50);
            }
            tell(inputs, "GO");
            TreeMap<Long, Long> handedOut = new TreeMap<>();
            for (BufferedReader out : outputs) {
                for (String line = out.readLine(); !"END".equals(line); line = out.readLine()) {
                    assertThat(line).startsWith("AT ");
                    String[] parts = line.split(" ");
                    handedOut.merge(Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long::sum);
                }
            }
            for (Process worker : workers) {
                assertThat(worker.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(worker.exitValue()).isZero();
            }
            assertWithinBound(handedOut);
            long total = handedOut.values().stream().mapToLong(Long::longValue).sum();
            assertThat(total).as("admitted over the run").isPositive();
            Map<String, ?> item = store.bucketItemForTest("tenant", "api");
            assertThat(Holds.held(store.bucketItemForTest("tenant", "api"), "r"))
                    .as("every process gave its batch back on close: %s", item).isZero();
        } finally {
            workers.forEach(Process::destroyForcibly);
            store.close();
        }
    }

    private static void assertWithinBound(TreeMap<Long, Long> handedOut) {
        Limits.Parameters p = Limits.parametersAt(LIMIT, 0);
        List<Map.Entry<Long, Long>> instants = new ArrayList<>(handedOut.entrySet());
        for (int i = 0; i < instants.size(); i++) {
            long sum = 0;
            long from = instants.get(i).getKey();
            for (int j = i; j < instants.size(); j++) {
                sum += instants.get(j).getValue();
                long to = instants.get(j).getKey();
                long credited = FullAt.grid(to, p).subtract(FullAt.grid(from, p)).longValueExact();
                if (sum * Limits.MILLI > p.capacityMilli() + credited) {
                    assertThat(sum).as("handed out from %d to %d ms", from, to)
                            .isLessThanOrEqualTo((p.capacityMilli() + credited) / Limits.MILLI);
                }
            }
        }
    }

    private static void tell(List<Writer> inputs, String word) throws Exception {
        for (Writer in : inputs) {
            in.write(word + "\n");
            in.flush();
        }
    }
}
