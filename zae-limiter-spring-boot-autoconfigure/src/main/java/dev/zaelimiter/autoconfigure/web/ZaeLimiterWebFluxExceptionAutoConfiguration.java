package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.MessageSource;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.DispatcherHandler;

/**
 * The {@link ReactiveRateLimitExceptionHandler} in a WebFlux application, so that refusals of reactive
 * {@code @RateLimited} methods answer like the filter's, as {@link ZaeLimiterMvcAutoConfiguration} does for Spring
 * MVC. Off with {@code zae.limiter.web.exception-handler=false}, or by defining a
 * {@link ReactiveRateLimitExceptionHandler} bean.
 */
@AutoConfiguration(after = ZaeLimiterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(DispatcherHandler.class)
@ConditionalOnBean(RateLimiter.class)
@ConditionalOnBooleanProperty(name = "zae.limiter.web.exception-handler", matchIfMissing = true)
@EnableConfigurationProperties(ZaeLimiterWebProperties.class)
public class ZaeLimiterWebFluxExceptionAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public ReactiveRateLimitExceptionHandler zaeLimiterReactiveExceptionHandler(ZaeLimiterWebProperties properties,
            ObjectProvider<RateLimitProblems> problems, ObjectProvider<MessageSource> messageSource) {
        return ReactiveRateLimitExceptionHandler.of(properties, problems, messageSource);
    }
}
