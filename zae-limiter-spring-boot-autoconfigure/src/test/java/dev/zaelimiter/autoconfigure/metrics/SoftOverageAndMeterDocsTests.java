package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The soft-overage counter, and the meter table of docs/actuator-and-metrics.md against the meters really made. */
class SoftOverageAndMeterDocsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withBean(Clock.class, MutableClock::start)
            .withPropertyValues(
                    "zae.limiter.resources.gpt.limits.rpm.capacity=10",
                    "zae.limiter.resources.gpt.limits.tpm.capacity=100",
                    "zae.limiter.resources.gpt.limits.tpm.soft=true");

    private static double overage(MeterRegistry registry, String resource, String limit) {
        Counter counter = registry.find(MicrometerRateLimiterListener.SOFT_OVERAGE)
                .tags("resource", resource, "limit", limit).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void countsCallsAdmittedWhileASoftLimitIsInDebtByResourceAndLimit() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            limiter.acquire("user-1", "gpt", Map.of("rpm", 1L, "tpm", 90L)).close();   // 10 left: not in debt
            assertThat(registry.find(MicrometerRateLimiterListener.SOFT_OVERAGE).counters()).isEmpty();
            limiter.acquire("user-1", "gpt", Map.of("rpm", 1L, "tpm", 50L)).close();   // -40: in debt
            limiter.acquire("user-1", "gpt", Map.of("rpm", 1L, "tpm", 1L)).close();    // still in debt
            limiter.acquire("user-2", "gpt", Map.of("rpm", 1L, "tpm", 1L)).close();    // another entity, no debt
            assertThat(overage(registry, "gpt", "tpm")).isEqualTo(2);
            Meter.Id id = registry.find(MicrometerRateLimiterListener.SOFT_OVERAGE).counter().getId();
            assertThat(id.getTags()).extracting(Tag::getKey).containsExactly("limit", "resource");
        });
    }

    @Test
    void aCascadeParentsSoftLimitIsCountedAsParentDotName() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            limiter.admin().createEntity("team");
            limiter.admin().createEntity(new Entity("dev-1", "Dev", "team", true));
            limiter.admin().setLimits("team", "gpt", List.of(Limit.perMinute("tpm", 10).soft()));
            limiter.admin().setLimits("dev-1", "gpt", List.of(Limit.perMinute("tpm", 1_000).soft()));
            limiter.acquire("dev-1", "gpt", Map.of("tpm", 20L)).close();
            assertThat(overage(registry, "gpt", "parent.tpm")).isEqualTo(1);
            assertThat(overage(registry, "gpt", "tpm")).isZero();
        });
    }

    @Test
    void theDocsListEveryMeterWithItsTags() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "actuator-and-metrics.md"));
        Map<String, TreeSet<String>> documented = new TreeMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `(zae\\.limiter\\.[a-z.]+)` \\| [a-z ]+ \\| ([^|]*)\\|").matcher(page);
        while (row.find()) {
            TreeSet<String> tags = new TreeSet<>();
            // tag names are the backquoted words outside parentheses (which list values), and the optional entity
            Matcher tag = Pattern.compile("`([a-z_-]+)`").matcher(row.group(2).replace("(and `entity` when enabled)", "`entity`")
                    .replaceAll("\\([^)]*\\)", ""));
            while (tag.find()) {
                tags.add(tag.group(1));
            }
            documented.put(row.group(1), tags);
        }
        runner.withPropertyValues("zae.limiter.metrics.entity-tag=true").run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            limiter.acquire("user-1", "gpt", Map.of("rpm", 1L, "tpm", 200L)).close();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Map<String, TreeSet<String>> made = registry.getMeters().stream()
                    .filter(m -> m.getId().getName().startsWith("zae.limiter."))
                    .collect(Collectors.groupingBy(m -> m.getId().getName(), TreeMap::new,
                            Collectors.flatMapping(m -> m.getId().getTags().stream().map(Tag::getKey),
                                    Collectors.toCollection(TreeSet::new))));
            assertThat(made).containsKey(MicrometerRateLimiterListener.SOFT_OVERAGE);
            for (Map.Entry<String, TreeSet<String>> meter : made.entrySet()) {
                assertThat(documented).as("docs/actuator-and-metrics.md lists meter %s", meter.getKey())
                        .containsKey(meter.getKey());
                TreeSet<String> withEntity = new TreeSet<>(documented.get(meter.getKey()));
                assertThat(meter.getValue()).as("tags of %s", meter.getKey()).isSubsetOf(withEntity);
            }
        });
        assertThat(documented).containsKeys(MicrometerRateLimiterListener.DECISIONS,
                MicrometerRateLimiterListener.DECISION_LATENCY, MicrometerRateLimiterListener.SOFT_OVERAGE,
                MeteredLimiterStore.STORE_LATENCY, StoreFaultMeters.CIRCUIT, StoreFaultMeters.CIRCUIT_SKIPPED,
                StoreFaultMeters.TIMEOUTS);
    }
}
