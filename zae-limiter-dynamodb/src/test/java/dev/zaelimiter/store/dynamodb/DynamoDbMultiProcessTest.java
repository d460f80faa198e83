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
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Two JVMs with eight threads each, on one bucket through the server, with the clock frozen: exactly the capacity. */
@Timeout(300)
class DynamoDbMultiProcessTest {

    private static final int PROCESSES = 2;
    private static final int THREADS = 8;
    private static final int CALLS = 100;
    private static final int CAPACITY = 1000;

    @Test
    void twoProcessesNeverAdmitMoreThanTheCapacity() throws Exception {
        long frozenAt = Instant.parse("2026-03-01T00:00:00Z").toEpochMilli();
        Clock clock = Clock.fixed(Instant.ofEpochMilli(frozenAt), ZoneOffset.UTC);
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), clock);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", CAPACITY)));

        List<Process> workers = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), ConcurrencyWorker.class.getName(),
                    Dynalite.get().endpoint().toString(), store.table(), store.namespace(),
                    Integer.toString(THREADS), Integer.toString(CALLS), Long.toString(frozenAt))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }
        try {
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process worker : workers) {
                BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(),
                        StandardCharsets.UTF_8));
                assertThat(out.readLine()).isEqualTo("READY");
                outputs.add(out);
            }
            for (Process worker : workers) {
                Writer in = new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8);
                in.write("GO\n");
                in.flush();
            }
            long admitted = 0;
            for (BufferedReader out : outputs) {
                String line = out.readLine();
                assertThat(line).startsWith("ADMITTED ");
                admitted += Long.parseLong(line.substring("ADMITTED ".length()));
            }
            assertThat(PROCESSES * THREADS * CALLS).isGreaterThan(CAPACITY);
            assertThat(admitted).isEqualTo(CAPACITY);
            assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 0L);
            for (Process worker : workers) {
                assertThat(worker.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(worker.exitValue()).isZero();
            }
        } finally {
            workers.forEach(Process::destroyForcibly);
        }
    }
}
