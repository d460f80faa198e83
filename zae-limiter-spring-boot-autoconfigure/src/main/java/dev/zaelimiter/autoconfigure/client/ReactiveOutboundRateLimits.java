package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;

import java.util.Objects;

/**
 * The {@code WebClient} filter functions of the targets of {@link OutboundRateLimits}, in applications with WebFlux:
 *
 * <pre>{@code
 * WebClient partner = WebClient.builder().baseUrl(url).filter(reactiveOutbound.filter("partner")).build();
 * }</pre>
 */
public class ReactiveOutboundRateLimits {

    private final OutboundRateLimits targets;
    private final ReactiveRateLimiter limiter;

    public ReactiveOutboundRateLimits(OutboundRateLimits targets, ReactiveRateLimiter limiter) {
        this.targets = Objects.requireNonNull(targets, "targets");
        this.limiter = Objects.requireNonNull(limiter, "limiter");
    }

    /** A filter function for calls to the declared target {@code name}. */
    public RateLimitingExchangeFilterFunction filter(String name) {
        return new RateLimitingExchangeFilterFunction(limiter, targets.target(name));
    }

    /** A filter function for calls to {@code target}, declared in code. */
    public RateLimitingExchangeFilterFunction filter(OutboundTarget target) {
        return new RateLimitingExchangeFilterFunction(limiter, target);
    }
}
