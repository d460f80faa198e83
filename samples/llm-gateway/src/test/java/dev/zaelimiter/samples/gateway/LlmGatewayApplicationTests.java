package dev.zaelimiter.samples.gateway;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Boots the sample on a random port and drives it over HTTP, with the limiter on a clock that only moves when a test
 * moves it, so that every count and every wait is exact.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LlmGatewayApplicationTests {

    /** 4,000 characters: 1,000 prompt tokens, so that with max_tokens 1,000 a request really costs 2,000 tokens. */
    private static final String LONG_PROMPT = "x".repeat(4000);

    @TestConfiguration(proxyBeanMethods = false)
    static class FrozenClock {

        @Bean
        MutableClock clock() {
            return MutableClock.start();   // 2026-03-01T00:00:00Z; the limiter takes the application's only Clock
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @Autowired
    RateLimiter limiter;

    @Autowired
    ObjectMapper json;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void fullBuckets() {
        clock.advance(Duration.ofMinutes(1));   // refills the filter's per-key buckets (their ids are hashes)
        for (String entity : List.of("key-acme-web", "key-acme-batch", "key-hobby", "org-acme")) {
            limiter.admin().resetBucket(entity, ModelClient.MODEL);
        }
    }

    @Test
    void aBurstOfRequestsIsRefusedByTheFilterWith429() throws Exception {
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> ok = chat("sk-hobby-1", "Say hello", 50);
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValue("\"requests\";q=10");
            assertThat(ok.headers().firstValue("RateLimit")).hasValue("\"requests\";r=" + (10 - i));
        }

        HttpResponse<String> refused = chat("sk-hobby-1", "Say hello", 50);

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"requests\";q=10");
        assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"requests\";r=0;t=2");
        JsonNode problem = json.readTree(refused.body());
        assertThat(problem.get("type").asString())
                .isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
        assertThat(problem.get("status").asInt()).isEqualTo(429);
        assertThat(problem.get("resource").asString()).isEqualTo("gateway");
        assertThat(problem.get("retryAfter").asInt()).isEqualTo(2);
        assertThat(problem.get("violations")).hasSize(1);
        JsonNode violation = problem.get("violations").get(0);
        assertThat(violation.get("limit").asString()).isEqualTo("requests");
        assertThat(violation.get("capacity").asInt()).isEqualTo(10);
        assertThat(violation.get("available").asInt()).isZero();
        assertThat(violation.get("requested").asInt()).isEqualTo(1);
        assertThat(violation.get("entity").asString()).startsWith("k_").hasSize(45);   // the key's HMAC
        assertThat(refused.body()).doesNotContain("sk-hobby-1");

        clock.advance(Duration.ofSeconds(2));   // one request back
        assertThat(chat("sk-hobby-1", "Say hello", 50).statusCode()).isEqualTo(200);
    }

    @Test
    void theTokenEstimateIsReservedUpFrontAndCorrectedAfterTheCall() throws Exception {
        // 40 characters: 10 prompt tokens; the answer is 20 tokens; the estimate is 10 + max_tokens
        HttpResponse<String> ok = chat("sk-acme-web-1", "x".repeat(40), 500);

        assertThat(ok.statusCode()).isEqualTo(200);
        JsonNode body = json.readTree(ok.body());
        assertThat(body.get("reserved_tokens").asInt()).isEqualTo(510);
        assertThat(body.get("usage").get("total_tokens").asInt()).isEqualTo(30);
        assertThat(limiter.available("key-acme-web", "gpt-4o"))
                .isEqualTo(Map.of("rpm", 19L, "tpm", 4000L - 30, "monthly", 100_000L - 30));
        // the key cascades: its organisation was charged the same 30 tokens on the limits it has
        assertThat(limiter.available("org-acme", "gpt-4o"))
                .isEqualTo(Map.of("tpm", 6000L - 30, "monthly", 150_000L - 30));

        // the whole estimate must be available up front, although this call would really cost only 30
        HttpResponse<String> refused = chat("sk-acme-web-1", "x".repeat(40), 3990 - 10 + 1);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(json.readTree(refused.body()).get("violated-policies").get(0).asString()).isEqualTo("tpm");
    }

    @Test
    void theKeysOfAnOrganisationShareItsMeteredBudgetAndEachHasItsOwnHardOne() throws Exception {
        // the batch key spends its 4,000 tokens a minute; the organisation's soft tpm (6,000) has 2,000 left
        assertThat(chat("sk-acme-batch-1", LONG_PROMPT, 1000).statusCode()).isEqualTo(200);
        assertThat(chat("sk-acme-batch-1", LONG_PROMPT, 1000).statusCode()).isEqualTo(200);

        HttpResponse<String> refused = chat("sk-acme-batch-1", LONG_PROMPT, 1000);

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("30");   // 2,000 tokens at 4,000 a minute
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue(
                "\"rpm\";q=20, \"tpm\";q=4000, \"monthly\";q=100000, \"parent.monthly\";q=150000");
        assertThat(refused.headers().firstValue("RateLimit")).hasValue(
                "\"rpm\";r=18, \"tpm\";r=0;t=30, \"monthly\";r=96000, \"parent.monthly\";r=146000");
        JsonNode problem = json.readTree(refused.body());
        assertThat(problem.get("resource").asString()).isEqualTo("gpt-4o");
        assertThat(problem.get("retryAfter").asInt()).isEqualTo(30);
        JsonNode violation = problem.get("violations").get(0);
        assertThat(problem.get("violations")).hasSize(1);
        assertThat(violation.get("entity").asString()).isEqualTo("key-acme-batch");
        assertThat(violation.get("limit").asString()).isEqualTo("tpm");
        assertThat(violation.get("requested").asInt()).isEqualTo(2000);

        // the web key still has its own 4,000; its second call takes the organisation's soft tpm into debt: admitted
        HttpResponse<String> first = chat("sk-acme-web-1", LONG_PROMPT, 1000);
        HttpResponse<String> second = chat("sk-acme-web-1", LONG_PROMPT, 1000);
        assertThat(json.readTree(first.body()).get("overdrawn")).isEmpty();
        assertThat(json.readTree(second.body()).get("overdrawn").get(0).asString()).isEqualTo("parent.tpm");

        JsonNode org = json.readTree(get("/actuator/ratelimits/org-acme/gpt-4o").body());
        JsonNode tpm = org.get("limits").get(0);
        assertThat(tpm.get("name").asString()).isEqualTo("tpm");
        assertThat(tpm.get("soft").asBoolean()).isTrue();
        assertThat(tpm.get("available").asInt()).isEqualTo(6000 - 4 * 2000);
        assertThat(tpm.get("overdrawn").asBoolean()).isTrue();
    }

    @Test
    void theMonthlyQuotaRunsOutAndComesBackOnTheFirstOfTheMonth() throws Exception {
        Instant nextMonth = Instant.parse("2026-04-01T00:00:00Z");
        HttpResponse<String> response;
        int admitted = 0;
        while ((response = chat("sk-hobby-1", LONG_PROMPT, 1000)).statusCode() == 200 && admitted < 100) {
            admitted++;
            clock.advance(Duration.ofSeconds(30));   // tpm and the filter's bucket refill; the quota does not
        }

        assertThat(admitted).isEqualTo(100_000 / 2000);
        assertThat(response.statusCode()).isEqualTo(429);
        JsonNode violation = json.readTree(response.body()).get("violations").get(0);
        assertThat(violation.get("limit").asString()).isEqualTo("monthly");
        assertThat(violation.get("available").asInt()).isZero();
        long untilReset = Duration.between(clock.instant(), nextMonth).toSeconds();
        assertThat(response.headers().firstValue("Retry-After")).hasValue(Long.toString(untilReset));

        clock.set(nextMonth);
        assertThat(chat("sk-hobby-1", LONG_PROMPT, 1000).statusCode()).isEqualTo(200);
        assertThat(limiter.available("key-hobby", "gpt-4o")).containsEntry("monthly", 100_000L - 2000);
    }

    @Test
    void requestsWithoutAKeyOrWithAnUnknownOneAreRefused() throws Exception {
        HttpResponse<String> noKey = http.send(HttpRequest.newBuilder(uri("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"hi\",\"max_tokens\":5}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(chat("sk-unknown", "hi", 5).statusCode()).isEqualTo(401);
        assertThat(json.readTree(get("/actuator/health").body()).at("/components/zaeLimiter/status").asString())
                .isEqualTo("UP");
    }

    private HttpResponse<String> chat(String apiKey, String prompt, int maxTokens)
            throws IOException, InterruptedException {
        String body = json.writeValueAsString(Map.of("prompt", prompt, "max_tokens", maxTokens));
        return http.send(HttpRequest.newBuilder(uri("/v1/chat/completions"))
                        .header("X-API-Key", apiKey)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}
