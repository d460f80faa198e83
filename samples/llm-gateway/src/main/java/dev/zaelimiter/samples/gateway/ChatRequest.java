package dev.zaelimiter.samples.gateway;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The body of {@code POST /v1/chat/completions}. */
public record ChatRequest(String prompt, @JsonProperty("max_tokens") int maxTokens) {
}
