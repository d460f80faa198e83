package dev.zaelimiter.samples.gateway;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.JsonNode;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbound example: the model provider answers 429 with {@code Retry-After}, and the limiter pauses the resource
 * {@code provider} for every caller, whatever their API key, so no further call reaches the provider; the actuator
 * shows the pause.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureTestRestTemplate
class ProviderPauseTests {

    @Autowired
    TestRestTemplate http;

    @Autowired
    FakeProvider provider;

    private ResponseEntity<JsonNode> chat(String apiKey) {
        HttpHeaders headers = new HttpHeaders();
        headers.set("X-API-Key", apiKey);
        headers.setContentType(MediaType.APPLICATION_JSON);
        return http.postForEntity("/v1/chat/completions",
                new HttpEntity<>(Map.of("prompt", "Say hello", "max_tokens", 20), headers), JsonNode.class);
    }

    @Test
    void aProvider429PausesTheProviderForEveryCallerAndTheActuatorShowsIt() {
        assertThat(chat("sk-hobby-1").getStatusCode().value()).isEqualTo(200);
        assertThat(provider.calls()).isEqualTo(1);

        provider.slowDownNext(30);
        ResponseEntity<JsonNode> slowedDown = chat("sk-hobby-1");
        assertThat(slowedDown.getStatusCode().value()).isEqualTo(503);
        // the real clock runs: allow a machine under load a few seconds between the pause and the answers
        assertThat(Integer.parseInt(slowedDown.getHeaders().getFirst("Retry-After"))).isBetween(25, 30);
        assertThat(provider.calls()).isEqualTo(2);

        // another key, another organisation: held back by the limiter, the provider never sees the call
        ResponseEntity<JsonNode> other = chat("sk-acme-web-1");
        assertThat(other.getStatusCode().value()).isEqualTo(429);
        assertThat(Integer.parseInt(other.getHeaders().getFirst("Retry-After"))).isBetween(25, 30);
        assertThat(other.getBody().path("detail").asString())
                .startsWith("Requests to resource 'provider' are paused; retry after ");
        assertThat(provider.calls()).isEqualTo(2);

        JsonNode bucket = http.getForObject("/actuator/ratelimits/gateway/provider", JsonNode.class);
        assertThat(bucket.path("pausedUntil").asString()).isNotBlank();
    }
}
