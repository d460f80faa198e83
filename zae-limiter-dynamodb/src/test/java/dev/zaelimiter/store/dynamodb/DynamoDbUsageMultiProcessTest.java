package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two JVMs with three threads each (a few seconds on the system clock), each flushing usage every 200 ms with one
 * write delivered twice, while a bucket is evicted (reset) under them: the history holds exactly what they counted.
 */
@Timeout(300)
class DynamoDbUsageMultiProcessTest {

    private static final int PROCESSES = 2;
    private static final int THREADS = 3;
    private static final int CALLS = 150;

    @Test
    void theSumOfHourlyUsageIsWhatEveryProcessCounted() throws Exception {
        Clock clock = Clock.systemUTC();
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), clock);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1_000_000)));
        limiter.admin().setLimits("tight", "api", List.of(Limit.perMinute("rpm", 5)));
        Instant from = Instant.now().minus(Duration.ofHours(1));

        List<Process> workers = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), UsageWorker.class.getName(),
                    Dynalite.get().endpoint().toString(), store.table(), store.namespace(),
                    Integer.toString(THREADS), Integer.toString(CALLS))
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
            long refused = 0;
            for (BufferedReader out : outputs) {
                String[] counted = out.readLine().split(" ");
                assertThat(counted[0]).isEqualTo("COUNTED");
                admitted += Long.parseLong(counted[1]);
                refused += Long.parseLong(counted[2]);
                assertThat(Long.parseLong(counted[3])).as("one write delivered twice").isEqualTo(1);
            }
            for (Process worker : workers) {
                assertThat(worker.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(worker.exitValue()).isZero();
            }
            Instant to = Instant.now().plus(Duration.ofHours(1));

            long hourlyAdmitted = 0;
            long hourlyRefused = 0;
            long dailyAdmitted = 0;
            for (String entity : UsageWorker.ENTITIES) {
                for (Usage usage : limiter.admin().usage(entity, "api", "rpm", UsageGranularity.HOUR, from, to)) {
                    hourlyAdmitted += usage.admitted();
                    hourlyRefused += usage.refused();
                    assertThat(usage.consumed()).isEqualTo(usage.admitted());
                }
                for (Usage usage : limiter.admin().usage(entity, "api", "rpm", UsageGranularity.DAY,
                        UsageGranularity.DAY.periodStart(from), to)) {
                    dailyAdmitted += usage.admitted();
                }
            }
            assertThat(admitted + refused).isEqualTo(PROCESSES * THREADS * CALLS);
            assertThat(refused).as("the tight entity was refused").isPositive();
            assertThat(hourlyAdmitted).isEqualTo(admitted);
            assertThat(hourlyRefused).isEqualTo(refused);
            assertThat(dailyAdmitted).isEqualTo(admitted);
        } finally {
            workers.forEach(Process::destroyForcibly);
        }
    }
}
