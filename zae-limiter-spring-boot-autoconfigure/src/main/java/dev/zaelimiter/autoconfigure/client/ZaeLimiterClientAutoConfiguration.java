package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;

/**
 * {@link OutboundRateLimits} for the targets of {@code zae.limiter.client.targets}, in an application with Spring's
 * HTTP client support and a {@link RateLimiter}, and {@link ReactiveOutboundRateLimits} when WebFlux is there too;
 * {@link HttpServiceGroupGuards} for the HTTP service groups that targets name.
 */
@AutoConfiguration(after = {ZaeLimiterAutoConfiguration.class, ZaeLimiterReactiveAutoConfiguration.class})
@ConditionalOnClass(ClientHttpRequestInterceptor.class)
@ConditionalOnBean(RateLimiter.class)
@EnableConfigurationProperties(ZaeLimiterClientProperties.class)
@Import(HttpServiceGroupGuards.class)
public class ZaeLimiterClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public OutboundRateLimits outboundRateLimits(RateLimiter rateLimiter, ZaeLimiterClientProperties properties) {
        return new OutboundRateLimits(rateLimiter, properties);
    }

    /** The {@code WebClient} side, when WebFlux's client is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ExchangeFilterFunction.class)
    @ConditionalOnBean(ReactiveRateLimiter.class)
    static class WebClientFilters {

        @Bean
        @ConditionalOnMissingBean
        ReactiveOutboundRateLimits reactiveOutboundRateLimits(OutboundRateLimits outboundRateLimits,
                ReactiveRateLimiter reactiveRateLimiter) {
            return new ReactiveOutboundRateLimits(outboundRateLimits, reactiveRateLimiter);
        }
    }
}
