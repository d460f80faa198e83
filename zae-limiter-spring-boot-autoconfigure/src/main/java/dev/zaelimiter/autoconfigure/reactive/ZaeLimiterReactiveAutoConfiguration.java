package dev.zaelimiter.autoconfigure.reactive;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.test.ZaeLimiterTestStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * A {@link ReactiveRateLimiter} over the application's {@link RateLimiter} when Reactor is on the classpath. Store
 * calls run inline for the in-memory stores and on Reactor's bounded-elastic scheduler for any other (such as
 * DynamoDB, whose client blocks on I/O). Define your own {@link ReactiveRateLimiter} bean to choose otherwise.
 */
@AutoConfiguration(after = ZaeLimiterAutoConfiguration.class)
@ConditionalOnClass(Mono.class)
@ConditionalOnBean(RateLimiter.class)
public class ZaeLimiterReactiveAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ZaeLimiterReactiveAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    public ReactiveRateLimiter reactiveRateLimiter(RateLimiter rateLimiter, ObjectProvider<LimiterStore> store) {
        LimiterStore bean = store.getIfUnique();
        boolean inMemory = bean == null ? rateLimiter.store() instanceof InMemoryStore
                : bean instanceof InMemoryStore || bean instanceof ZaeLimiterTestStore;
        log.debug("reactive rate limiting calls the store {}", inMemory ? "inline (in-memory)"
                : "on the bounded-elastic scheduler");
        return ReactiveRateLimiter.of(rateLimiter, !inMemory);
    }
}
