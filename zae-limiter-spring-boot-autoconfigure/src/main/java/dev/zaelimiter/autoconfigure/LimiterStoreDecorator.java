package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.store.LimiterStore;

/**
 * Wraps the store that the auto-configured {@link dev.zaelimiter.RateLimiter} uses (for timing, tracing, caching),
 * without changing the {@link LimiterStore} bean itself. Every such bean applies, in order; a decorator must pass
 * every {@link LimiterStore} method on, default methods included.
 */
@FunctionalInterface
public interface LimiterStoreDecorator {

    LimiterStore decorate(LimiterStore store);
}
