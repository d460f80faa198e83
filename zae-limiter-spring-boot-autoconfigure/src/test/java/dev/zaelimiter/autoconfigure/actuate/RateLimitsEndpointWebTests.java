package dev.zaelimiter.autoconfigure.actuate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ImportActuatorWeb;
import dev.zaelimiter.autoconfigure.ImportHealth;
import dev.zaelimiter.autoconfigure.ImportMeters;
import dev.zaelimiter.autoconfigure.ImportServletWebStack;
import dev.zaelimiter.autoconfigure.LocalHttp;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.metrics.ZaeLimiterMetricsAutoConfiguration;
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
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint and the health indicator over HTTP, in a web application on a random port configured with the YAML
 * of {@code docs/actuator-and-metrics.md}; the answers must be the JSON the page shows.
 */
@SpringBootTest(classes = RateLimitsEndpointWebTests.Application.class, webEnvironment = WebEnvironment.RANDOM_PORT)
class RateLimitsEndpointWebTests {

    /** Tuesday 2026-03-10, 10:00 in New York: inside the business-hours window. */
    static final MutableClock CLOCK = new MutableClock(Instant.parse("2026-03-10T14:00:00Z"));

    @SpringBootConfiguration
    @ImportServletWebStack
    @ImportActuatorWeb
    @ImportHealth
    @ImportMeters
    @ImportAutoConfiguration({ZaeLimiterAutoConfiguration.class, ZaeLimiterActuatorAutoConfiguration.class,
            ZaeLimiterMetricsAutoConfiguration.class})
    static class Application {

        @Bean
        Clock clock() {
            return CLOCK;
        }
    }

    private static final Path PAGE = Path.of("../docs/actuator-and-metrics.md");

    /** The fenced block of the page marked {@code <!-- KIND: NAME -->}. */
    static String block(String kind, String name) throws IOException {
        Matcher m = Pattern.compile("<!-- " + kind + ": " + Pattern.quote(name) + " -->\\s*```" + kind
                + "\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(PAGE, StandardCharsets.UTF_8));
        if (!m.find()) {
            throw new AssertionError("no " + kind + " block " + name + " in " + PAGE.toAbsolutePath());
        }
        return m.group(1);
    }

    @DynamicPropertySource
    static void pageConfiguration(DynamicPropertyRegistry registry) throws IOException {
        for (PropertySource<?> source : new YamlPropertySourceLoader().load("actuator-and-metrics.md",
                new ByteArrayResource(block("yaml", "actuator-example").getBytes(StandardCharsets.UTF_8)))) {
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

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void readsOneEntityOnOneResourceAsThePageShows() throws Exception {
        // 10:00 on Tuesday 10 March 2026 in New York
        limiter.acquire("key-1", "gpt-4", Map.of("rpm", 1L, "tpm", 12_000L, "monthly", 12_000L)).close();
        ResponseEntity<String> response = http.getForEntity("/actuator/ratelimits/key-1/gpt-4", String.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        JSONAssert.assertEquals(block("json", "ratelimits-read"), response.getBody(), JSONCompareMode.STRICT);
    }

    @Test
    void listsTheDeclarationsAsThePageShows() throws Exception {
        ResponseEntity<String> response = http.getForEntity("/actuator/ratelimits", String.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        JSONAssert.assertEquals(block("json", "ratelimits-list"), response.getBody(), JSONCompareMode.STRICT);
        JsonNode body = json.readTree(response.getBody());
        assertThat(body.at("/resources/gpt-4/limits/0/schedule/0/scale").asDouble()).isEqualTo(0.5);
        assertThat(body.at("/resources/openai~1gpt-4/limits/0/capacity").asLong()).isEqualTo(10);
        assertThat(body.at("/entities/acme/name").asText()).isEqualTo("Acme Corp");
        assertThat(body.at("/entities/key-1/parent").asText()).isEqualTo("acme");
        assertThat(body.at("/entities/key-1/cascade").asBoolean()).isTrue();
    }

    @Test
    void readsAResourceWithASlashAndAnswers404ForUnknownOnes() {
        ResponseEntity<String> slash = http.getForEntity("/actuator/ratelimits/key-1/openai/gpt-4", String.class);
        assertThat(slash.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(slash.getBody()).contains("\"resource\":\"openai/gpt-4\"");
        assertThat(http.getForEntity("/actuator/ratelimits/key-1/unknown", String.class).getStatusCode())
                .isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(http.getForEntity("/actuator/ratelimits/not%20an%20id/gpt-4", String.class).getStatusCode())
                .isEqualTo(HttpStatus.NOT_FOUND);
    }

    @Test
    void resetsABucketWithDelete() {
        limiter.acquire("user-9", "openai/gpt-4", Map.of("rpm", 4L)).close();
        assertThat(limiter.available("user-9", "openai/gpt-4")).containsEntry("rpm", 6L);

        ResponseEntity<Void> reset = http.exchange("/actuator/ratelimits/user-9/openai/gpt-4", HttpMethod.DELETE,
                null, Void.class);
        assertThat(reset.getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
        assertThat(limiter.available("user-9", "openai/gpt-4")).containsEntry("rpm", 10L);

        ResponseEntity<String> bad = http.exchange("/actuator/ratelimits/-bad/gpt-4", HttpMethod.DELETE, null,
                String.class);
        assertThat(bad.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
    }

    @Test
    void reportsTheStoreInTheHealthEndpointAsThePageShows() throws Exception {
        ResponseEntity<String> response = http.getForEntity("/actuator/health", String.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        JSONAssert.assertEquals(block("json", "health"), response.getBody(), JSONCompareMode.LENIENT);
        JsonNode zae = json.readTree(response.getBody()).at("/components/zaeLimiter");
        assertThat(zae.at("/status").asText()).isEqualTo("UP");
        assertThat(zae.at("/details/store").asText()).isEqualTo("InMemoryStore");
    }
}
