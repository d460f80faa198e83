package dev.zaelimiter.samples.gateway;

import org.springframework.stereotype.Component;

/**
 * A stand-in for the model: deterministic, so that the token counts are easy to follow. A prompt costs one token per
 * four characters, and the answer is twice as long as the prompt, up to {@code max_tokens}.
 */
@Component
public class ModelClient {

    /** The resource the model's limits are declared on. */
    public static final String MODEL = "gpt-4o";

    /** The prompt's tokens: one per four characters, rounded up. */
    public int countTokens(String text) {
        return (text.length() + 3) / 4;
    }

    /** The most a request can cost, known before the call: its prompt and the longest answer it allows. */
    public long estimateTokens(ChatRequest request) {
        return countTokens(request.prompt()) + (long) request.maxTokens();
    }

    /** "Calls" the model. */
    public Completion complete(ChatRequest request) {
        int promptTokens = countTokens(request.prompt());
        int completionTokens = Math.min(request.maxTokens(), 2 * promptTokens);
        return new Completion("(a simulated answer of " + completionTokens + " tokens)", promptTokens,
                completionTokens);
    }

    /** The model's answer and what it really cost. */
    public record Completion(String text, int promptTokens, int completionTokens) {

        public int totalTokens() {
            return promptTokens + completionTokens;
        }
    }
}
