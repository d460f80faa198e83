package dev.zaelimiter.samples.gateway;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.client.UpstreamRateLimitedException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import java.time.Clock;

/**
 * {@code POST /v1/chat/completions}. The HTTP filter has already counted the request against the caller's API key
 * (see {@code zae.limiter.web.rules} in {@code application.yaml}); {@link ChatService} spends the key's model limits.
 */
@RestController
public class ChatController {

    private final ApiKeys apiKeys;
    private final ChatService chat;

    private final Clock clock;

    public ChatController(ApiKeys apiKeys, ChatService chat, RateLimiter limiter) {
        this.apiKeys = apiKeys;
        this.chat = chat;
        this.clock = limiter.clock();
    }

    @PostMapping("/v1/chat/completions")
    public ChatResponse complete(@RequestHeader("X-API-Key") String apiKey, @RequestBody ChatRequest request) {
        String keyId = apiKeys.keyId(apiKey)
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.UNAUTHORIZED, "Unknown API key."));
        if (request.prompt() == null || request.prompt().isBlank() || request.maxTokens() < 1) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    "A request needs a prompt and max_tokens of 1 or more.");
        }
        return chat.complete(keyId, request);
    }

    /**
     * The provider asked for a break: the limiter has paused it for every caller (who get the starter's 429 until the
     * pause ends); this caller, whose request reached the provider, gets 503 with the same {@code Retry-After}.
     */
    @ExceptionHandler(UpstreamRateLimitedException.class)
    public ResponseEntity<ProblemDetail> providerPaused(UpstreamRateLimitedException e) {
        long seconds = Math.max(1, (e.retryAfter(clock.instant()).toMillis() + 999) / 1000);   // rounded up
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The model provider asked for a break; retry after " + seconds + " seconds.");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(seconds)).body(problem);
    }
}
