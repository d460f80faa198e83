package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.StoreSetup;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@link ZaeLimiterHealthIndicator}, unless {@code management.health.zaelimiter.enabled=false}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.AbstractHealthIndicator")
@ConditionalOnEnabledHealthIndicator("zaelimiter")
class ZaeLimiterHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(value = ZaeLimiterHealthIndicator.class,
            name = {"zaeLimiterHealthIndicator", "zaeLimiterHealthContributor"})
    ZaeLimiterHealthIndicator zaeLimiterHealthIndicator(RateLimiter rateLimiter, ObjectProvider<StoreSetup> setup) {
        return new ZaeLimiterHealthIndicator(rateLimiter, setup.getIfUnique());
    }
}
