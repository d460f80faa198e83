package dev.zaelimiter.autoconfigure.actuate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ImportActuatorWeb;
import dev.zaelimiter.autoconfigure.ImportServletWebStack;
import dev.zaelimiter.autoconfigure.LocalHttp;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.metrics.ZaeLimiterMetricsAutoConfiguration;
import dev.zaelimiter.docs.DocsYaml;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestTemplate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The usage and audit reports over HTTP, in a web application configured with the YAML of
 * {@code docs/usage-and-audit.md}; the answers must be the JSON the page shows.
 */
@SpringBootTest(classes = UsageAuditEndpointWebTests.Application.class, webEnvironment = WebEnvironment.RANDOM_PORT)
class UsageAuditEndpointWebTests {

    static final MutableClock CLOCK = new MutableClock(Instant.parse("2026-03-10T14:05:00Z"));
    private static final Path PAGE = Path.of("../docs/usage-and-audit.md");

    @SpringBootConfiguration
    @ImportServletWebStack
    @ImportActuatorWeb
    @ImportAutoConfiguration({ZaeLimiterAutoConfiguration.class, ZaeLimiterActuatorAutoConfiguration.class})
    static class Application {

        @Bean
        Clock clock() {
            return CLOCK;
        }
    }

    static String block(String kind, String name) throws IOException {
        Matcher m = Pattern.compile("<!-- " + kind + ": " + Pattern.quote(name) + " -->\\s*```" + kind
                + "\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(PAGE, StandardCharsets.UTF_8));
        if (!m.find()) {
            throw new AssertionError("no " + kind + " block " + name + " in " + PAGE.toAbsolutePath());
        }
        return m.group(1);
    }

    @DynamicPropertySource
    static void pageConfiguration(DynamicPropertyRegistry registry) {
        for (PropertySource<?> source : DocsYaml.load("usage-and-audit.md", "usage-audit-example")) {
            EnumerablePropertySource<?> properties = (EnumerablePropertySource<?>) source;
            for (String name : properties.getPropertyNames()) {
                String value = String.valueOf(properties.getProperty(name));
                registry.add(name, () -> value);
            }
        }
    }

    @LocalServerPort
    private int port;

    private RestTemplate http;

    @BeforeEach
    void connect() {
        http = LocalHttp.to(port);
    }

    @Autowired
    private RateLimiter limiter;

    @Test
    void reportsUsageTopUsageAndTheAuditLogAsThePageShows() throws Exception {
        limiter.acquire("tenant-7", "gpt-4", Map.of("rpm", 1L, "tpm", 1200L)).close();
        limiter.acquire("tenant-7", "gpt-4", Map.of("rpm", 1L, "tpm", 800L)).close();
        limiter.acquire("tenant-9", "gpt-4", Map.of("rpm", 1L, "tpm", 300L)).close();
        limiter.admin().setLimits("tenant-7", "gpt-4", List.of(Limit.perMinute("rpm", 120)));

        ResponseEntity<String> usage = http.getForEntity("/actuator/ratelimits/usage?entity=tenant-7&resource=gpt-4"
                + "&limit=tpm&from=2026-03-10T00:00:00Z&to=2026-03-11T00:00:00Z", String.class);
        assertThat(usage.getStatusCode()).isEqualTo(HttpStatus.OK);
        JSONAssert.assertEquals(block("json", "usage-report"), usage.getBody(), JSONCompareMode.STRICT);

        ResponseEntity<String> top = http.getForEntity("/actuator/ratelimits/top-usage?resource=gpt-4&limit=tpm"
                + "&granularity=day&from=2026-03-10T00:00:00Z&to=2026-03-11T00:00:00Z&top=2", String.class);
        JSONAssert.assertEquals(block("json", "top-usage-report"), top.getBody(), JSONCompareMode.STRICT);

        ResponseEntity<String> audit = http.getForEntity("/actuator/ratelimits/audit?entity=tenant-7&pageSize=1",
                String.class);
        JSONAssert.assertEquals(block("json", "audit-report"), audit.getBody(), new org.skyscreamer.jsonassert
                .comparator.CustomComparator(JSONCompareMode.STRICT,
                new org.skyscreamer.jsonassert.Customization("events[0].id", (a, b) -> true),
                new org.skyscreamer.jsonassert.Customization("next_cursor", (a, b) -> true)));

        ResponseEntity<String> bad = http.getForEntity("/actuator/ratelimits/usage?entity=tenant-7&granularity=week",
                String.class);
        assertThat(bad.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
    }
}