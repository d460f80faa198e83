package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three JVMs with four threads each on one bucket, on the real clock: each takes a token, the bucket goes idle until
 * it is full again, then all of them burst. However the calls interleave, the admitted total never exceeds the
 * capacity plus what refilled over the span of the burst (idle time is not credited twice).
 */
@Timeout(300)
class DynamoDbRealClockMultiProcessTest {

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    private static final long CAPACITY = 20;
    /** 20 tokens per 10 s: a slow refill, so that any idle time credited twice shows above the bound. */
    private static final Duration PERIOD = Duration.ofSeconds(10);
    private static final long RUN_MILLIS = 2_000;

    @Test
    void afterAnIdleSpellThreeProcessesAdmitNoMoreThanCapacityPlusRefill() throws Exception {
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), Clock.systemUTC());
        RateLimiter limiter = RateLimiter.builder().store(store).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.custom("r", CAPACITY, CAPACITY, PERIOD)));

        List<Process> workers = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), IdleBurstWorker.class.getName(),
                    Dynalite.get().endpoint().toString(), store.table(), store.namespace(),
                    Integer.toString(THREADS), Long.toString(RUN_MILLIS))
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
            // the bucket refills from 17 to full in 1.5 s; wait until it surely is, on the real clock
            while (System.currentTimeMillis() - warmedAt < 2_000) {
                Thread.sleep(100);
            }
            tell(inputs, "GO");
            long admitted = 0;
            long from = Long.MAX_VALUE;
            long to = Long.MIN_VALUE;
            for (BufferedReader out : outputs) {
                String[] line = out.readLine().split(" ");
                assertThat(line[0]).isEqualTo("ADMITTED");
                admitted += Long.parseLong(line[1]);
                from = Math.min(from, Long.parseLong(line[3]));
                to = Math.max(to, Long.parseLong(line[5]));
            }
            long refilled = (to - from) * CAPACITY / PERIOD.toMillis() + 1;
            assertThat(admitted).as("admitted in %d ms", to - from).isBetween(1L, CAPACITY + refilled);
            for (Process worker : workers) {
                assertThat(worker.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(worker.exitValue()).isZero();
            }
        } finally {
            workers.forEach(Process::destroyForcibly);
            store.close();
        }
    }

    private static void tell(List<Writer> inputs, String word) throws Exception {
        for (Writer in : inputs) {
            in.write(word + "\n");
            in.flush();
        }
    }
}
