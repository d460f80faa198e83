package dev.zaelimiter.autoconfigure.actuate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.DisabledMode;
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
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
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
 * The endpoint's write operations over HTTP, configured with the YAML of {@code docs/usage-and-audit.md}: off unless
 * enabled, validated like the admin API, audited.
 */
@SpringBootTest(classes = EndpointWritesWebTests.Application.class, webEnvironment = WebEnvironment.RANDOM_PORT)
class EndpointWritesWebTests {

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

    @DynamicPropertySource
    static void pageConfiguration(DynamicPropertyRegistry registry) {
        for (PropertySource<?> source : DocsYaml.load("usage-and-audit.md", "endpoint-writes-example")) {
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

    private ResponseEntity<String> post(String action, String json) {
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(MediaType.APPLICATION_JSON);
        return http.postForEntity("/actuator/ratelimits/" + action, new HttpEntity<>(json, headers), String.class);
    }

    @Test
    void enabledWritesChangeTheStoreAndAreAuditedAndTheOthersAreRefused() throws Exception {
        Matcher request = Pattern.compile("<!-- json: set-limits-request -->\\s*```json\\n(.*?)```", Pattern.DOTALL)
                .matcher(Files.readString(PAGE, StandardCharsets.UTF_8));
        assertThat(request.find()).isTrue();
        ResponseEntity<String> set = post("set-limits", request.group(1));
        assertThat(set.getStatusCode()).as(set.getBody()).isEqualTo(HttpStatus.OK);
        assertThat(limiter.admin().getLimits("tenant-7", "gpt-4")).containsExactly(Limit.perMinute("rpm", 120),
                Limit.perMinute("tpm", 50_000).soft());
        assertThat(limiter.admin().audit(AuditQuery.entity("tenant-7")).events()).singleElement()
                .satisfies(event -> {
                    assertThat(event.actor()).isEqualTo("gateway");
                    assertThat(event.action()).isEqualTo("set-limits");
                });

        assertThat(post("set-disabled", "{\"resource\": \"gpt-4\", \"mode\": \"bypass\"}").getStatusCode())
                .isEqualTo(HttpStatus.OK);
        assertThat(limiter.admin().getResourceDisabled("gpt-4")).contains(DisabledMode.BYPASS);
        assertThat(post("set-disabled", "{\"resource\": \"gpt-4\", \"mode\": \"inherit\"}").getStatusCode())
                .isEqualTo(HttpStatus.OK);
        assertThat(limiter.admin().getResourceDisabled("gpt-4")).isEmpty();
        assertThat(post("delete-limits", "{\"entity\": \"tenant-7\", \"resource\": \"gpt-4\"}")
                .getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(limiter.admin().getLimits("tenant-7", "gpt-4")).isEmpty();

        ResponseEntity<String> bad = post("set-limits",
                "{\"resource\": \"gpt-4\", \"limits\": \"rpm.capacty=5\"}");
        assertThat(bad.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(bad.getBody()).contains("capacty");
        assertThat(limiter.admin().getResourceDefaults("gpt-4")).as("nothing written").isEmpty();

        ResponseEntity<String> pause = post("pause", "{\"resource\": \"gpt-4\", \"duration\": \"30s\"}");
        assertThat(pause.getStatusCode()).isEqualTo(HttpStatus.FORBIDDEN);
        assertThat(pause.getBody()).contains("zae.limiter.endpoint-writes.pauses");
        assertThat(post("set-parent", "{\"entity\": \"tenant-7\", \"parent\": \"org-1\"}").getStatusCode())
                .isEqualTo(HttpStatus.FORBIDDEN);
    }

    @Test
    void theResetIsAWriteThatIsOffUnlessEnabled() {
        ResponseEntity<String> reset = http.exchange("/actuator/ratelimits/tenant-8/gpt-4", HttpMethod.DELETE, null,
                String.class);
        assertThat(reset.getStatusCode()).isEqualTo(HttpStatus.FORBIDDEN);
        assertThat(reset.getBody()).contains("zae.limiter.endpoint-writes.resets");
        assertThat(limiter.admin().audit(AuditQuery.entity("tenant-8")).events()).isEmpty();
    }

    @Test
    void aValueThatDoesNotConvertNamesItsFieldAndReport400sCarryTheReason() {
        ResponseEntity<String> bad = post("set-limits",
                "{\"resource\": \"gpt-4\", \"limits\": \"rpm.capacity=lots\"}");
        assertThat(bad.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(bad.getBody()).contains("limits.rpm.capacity: cannot read 'lots' as a long");
        assertThat(limiter.admin().getResourceDefaults("gpt-4")).as("nothing written").isEmpty();

        ResponseEntity<String> report = http.getForEntity("/actuator/ratelimits/usage?entity=t&granularity=week",
                String.class);
        assertThat(report.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(report.getBody()).contains("\"error\"").contains("granularity is hour or day, not 'week'");
        ResponseEntity<String> unknown = http.getForEntity("/actuator/ratelimits/nope", String.class);
        assertThat(unknown.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(unknown.getBody()).contains("usage, top-usage, audit or drift");
    }
}
