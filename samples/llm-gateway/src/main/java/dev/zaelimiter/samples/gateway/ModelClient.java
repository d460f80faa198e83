package dev.zaelimiter.samples.gateway;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.zaelimiter.autoconfigure.client.OutboundRateLimits;
import dev.zaelimiter.autoconfigure.client.UpstreamRateLimitedException;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

import java.util.Map;

/**
 * The model, called over HTTP through the limiter: every call goes through the interceptor of the outbound target
 * {@code provider} ({@code zae.limiter.client.targets.provider} in {@code application.yaml}), which takes one request
 * from the provider account's budget first, and, when the provider answers 429 with {@code Retry-After}, pauses the
 * resource {@code provider} for every caller of every instance until then. The provider here is {@link FakeProvider},
 * deterministic so that token counts are easy to follow: a prompt costs one token per four characters, and the
 * answer is twice as long as the prompt, up to {@code max_tokens}.
 */
@Component
public class ModelClient {

    /** The resource the model's limits are declared on. */
    public static final String MODEL = "gpt-4o";

    private final RestClient provider;

    public ModelClient(FakeProvider provider, OutboundRateLimits outbound) {
        this.provider = RestClient.builder()
                .baseUrl(provider.url())
                .requestInterceptor(outbound.interceptor("provider"))
                .build();
    }

    /** The prompt's tokens: one per four characters, rounded up. */
    public int countTokens(String text) {
        return (text.length() + 3) / 4;
    }

    /** The most a request can cost, known before the call: its prompt and the longest answer it allows. */
    public long estimateTokens(ChatRequest request) {
        return countTokens(request.prompt()) + (long) request.maxTokens();
    }

    /**
     * Calls the model.
     *
     * @throws dev.zaelimiter.ResourcePausedException when the provider asked for a break that is still running
     * @throws UpstreamRateLimitedException           when the provider asks for one now
     */
    public Completion complete(ChatRequest request) {
        int promptTokens = countTokens(request.prompt());
        ProviderAnswer answer = provider.post().uri("/v1/completions")
                .body(Map.of("prompt_tokens", promptTokens, "max_tokens", request.maxTokens()))
                .retrieve()
                .body(ProviderAnswer.class);
        int completionTokens = answer.completionTokens();
        return new Completion("(a simulated answer of " + completionTokens + " tokens)", promptTokens,
                completionTokens);
    }

    /** The provider's answer. */
    record ProviderAnswer(@JsonProperty("completion_tokens") int completionTokens) {
    }

    /** The model's answer and what it really cost. */
    public record Completion(String text, int promptTokens, int completionTokens) {

        public int totalTokens() {
            return promptTokens + completionTokens;
        }
    }
}
