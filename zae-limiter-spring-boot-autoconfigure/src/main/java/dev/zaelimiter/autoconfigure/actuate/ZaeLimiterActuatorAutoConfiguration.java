package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.LimitDeclarations;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of the {@link RateLimitsEndpoint} (when the {@code ratelimits} endpoint is available, that
 * is enabled and exposed) and of the {@link ZaeLimiterHealthIndicator} (unless
 * {@code management.health.zaelimiter.enabled=false}), for the application's {@link RateLimiter}. Each bean backs
 * off when the application defines its own.
 */
@AutoConfiguration(after = ZaeLimiterAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(RateLimiter.class)
@Import(ZaeLimiterHealthConfiguration.class)
public class ZaeLimiterActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(RateLimitsEndpoint.class)
    static class RateLimitsEndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        public RateLimitsEndpoint rateLimitsEndpoint(RateLimiter rateLimiter,
                ObjectProvider<LimitDeclarations> declarations, ObjectProvider<ZaeLimiterProperties> properties) {
            ZaeLimiterProperties.EndpointWrites writes = properties.getIfAvailable(ZaeLimiterProperties::new)
                    .getEndpointWrites();
            return new RateLimitsEndpoint(rateLimiter, declarations.getIfAvailable(), writes);
        }
    }
}
