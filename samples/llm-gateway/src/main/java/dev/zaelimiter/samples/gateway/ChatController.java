package dev.zaelimiter.samples.gateway;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code POST /v1/chat/completions}. The HTTP filter has already counted the request against the caller's API key
 * (see {@code zae.limiter.web.rules} in {@code application.yaml}); {@link ChatService} spends the key's model limits.
 */
@RestController
public class ChatController {

    private final ApiKeys apiKeys;
    private final ChatService chat;

    public ChatController(ApiKeys apiKeys, ChatService chat) {
        this.apiKeys = apiKeys;
        this.chat = chat;
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
}
