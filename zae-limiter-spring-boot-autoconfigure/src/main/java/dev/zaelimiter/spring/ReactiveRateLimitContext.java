package dev.zaelimiter.spring;

import dev.zaelimiter.Lease;
import reactor.core.publisher.Mono;

/**
 * The lease of a reactive {@link RateLimited} call, read from the Reactor context of the publisher the method returns
 * (a thread-local {@link RateLimitContext} cannot follow a publisher across threads). For example, adjust the tokens
 * to what the call really used:
 *
 * <pre>{@code
 * @RateLimited(resource = "llm", entity = "#user", consume = @Consume(limit = "tpm", amount = "#maxTokens"))
 * public Mono<Answer> ask(String user, int maxTokens) {
 *     return client.ask(...).flatMap(answer -> ReactiveRateLimitContext.lease("llm")
 *             .doOnNext(lease -> lease.adjust("tpm", answer.tokens() - maxTokens))
 *             .thenReturn(answer));
 * }
 * }</pre>
 * Requires Reactor on the classpath.
 */
public final class ReactiveRateLimitContext {

    private ReactiveRateLimitContext() {
    }

    /** The key under which the lease of {@code resource} is in the Reactor context. */
    public static String key(String resource) {
        return ReactiveRateLimitContext.class.getName() + ":" + resource;
    }

    /** The lease of the enclosing reactive {@code @RateLimited} call on {@code resource}; empty outside one. */
    public static Mono<Lease> lease(String resource) {
        return Mono.deferContextual(context -> Mono.justOrEmpty(context.<Lease>getOrEmpty(key(resource))));
    }
}
