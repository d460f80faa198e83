package dev.zaelimiter.samples.gateway;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * The answer of {@code POST /v1/chat/completions}.
 *
 * @param model     the model that answered
 * @param text      the completion
 * @param usage     what the call really cost
 * @param reserved  the tokens reserved before the call (the estimate), of which {@code reserved - usage.total}
 *                  were given back afterwards
 * @param overdrawn the soft limits in debt once the estimate was reserved, such as {@code parent.tpm} when the
 *                  organisation went over its committed throughput: metered and admitted, never refused
 */
public record ChatResponse(String model, String text, Usage usage, @JsonProperty("reserved_tokens") long reserved,
        List<String> overdrawn) {

    /** Token counts, as the model reports them. */
    public record Usage(@JsonProperty("prompt_tokens") int prompt, @JsonProperty("completion_tokens") int completion,
            @JsonProperty("total_tokens") int total) {
    }
}
