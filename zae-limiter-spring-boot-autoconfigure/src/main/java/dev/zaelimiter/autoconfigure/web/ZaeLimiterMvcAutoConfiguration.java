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
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Auto-configuration of the {@link RateLimitExceptionHandler} in a Spring MVC application with a
 * {@link RateLimiter}, so that refusals thrown by {@code @RateLimited} methods answer like the filter's. Off with
 * {@code zae.limiter.web.exception-handler=false}, or by defining a {@link RateLimitExceptionHandler} bean.
 */
@AutoConfiguration(after = ZaeLimiterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(RateLimiter.class)
@ConditionalOnBooleanProperty(name = "zae.limiter.web.exception-handler", matchIfMissing = true)
@EnableConfigurationProperties(ZaeLimiterWebProperties.class)
public class ZaeLimiterMvcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public RateLimitExceptionHandler zaeLimiterExceptionHandler(ZaeLimiterWebProperties properties,
            ObjectProvider<RateLimitProblems> problems, ObjectProvider<MessageSource> messageSource) {
        return new RateLimitExceptionHandler(RateLimitHeaders.ietf(properties),
                RateLimitProblems.of(problems, messageSource, properties),
                RateLimitHeaders.unavailableRetryAfter(properties));
    }
}
