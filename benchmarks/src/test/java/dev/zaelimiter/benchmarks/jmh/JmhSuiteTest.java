package dev.zaelimiter.benchmarks.jmh;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Every benchmark of the suite runs, briefly and in this JVM, and the report has every target's row. */
class JmhSuiteTest {

    @Test
    void everyBenchmarkRunsAndTheReportCoversEveryTarget() throws Exception {
        JmhSuite.Figures figures = JmhSuite.run(JmhSuite.Length.SMOKE, 2_000);

        for (String benchmark : JmhSuite.expected()) {
            assertThat(figures.score(benchmark, 1).opsPerMicro()).as(benchmark).isPositive();
        }
        assertThat(figures.scores()).hasSize(JmhSuite.expected().size());
        assertThat(figures.heap()[0]).as("our bytes per bucket").isPositive();
        assertThat(figures.heap()[1]).as("bucket4j's bytes per bucket").isPositive();
        assertThat(figures.markdown())
                .contains("one limit, hot key vs bucket4j", "10,000 keys vs bucket4j map of buckets",
                        "refused call vs bucket4j",
                        "3-limit gateway call with adjust, hot key, vs three bucket4j buckets",
                        "3-limit gateway call with adjust, 10,000 keys, vs three bucket4j buckets", "`@RateLimited` over direct acquire",
                        "filter, one rule, over direct acquire, on Tomcat's request/response",
                        "filter on Spring's mock request/response", "heap per one-limit bucket at 2,000 buckets");
    }
}
