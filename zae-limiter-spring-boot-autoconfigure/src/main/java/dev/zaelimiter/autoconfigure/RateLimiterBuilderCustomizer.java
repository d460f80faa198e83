package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;

/**
 * Tunes the {@link RateLimiter.Builder} of the auto-configured {@link RateLimiter} before it is built, like Spring
 * Boot's {@code RestClientCustomizer}: a bean of this type can set what the {@code zae.limiter} properties do not
 * cover, such as {@code sleeper}, {@code maxQueue} or a listener. Customizers run in {@code @Order} /
 * {@link org.springframework.core.Ordered} order, after the properties, the {@code Clock} bean and the
 * {@code RateLimiterListener} beans have been applied, so that a customizer has the last word. Not applied when the
 * application defines its own {@link RateLimiter} bean.
 */
@FunctionalInterface
public interface RateLimiterBuilderCustomizer {

    /** Changes {@code builder} in place. */
    void customize(RateLimiter.Builder builder);
}
