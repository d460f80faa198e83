package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import org.springframework.beans.factory.BeanFactory;
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
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.web.server.WebFilter;

/**
 * Auto-configuration of the {@link ReactiveRateLimitFilter} in a reactive (WebFlux) web application, under the same
 * conditions and properties as the servlet filter: a rate limiter, at least one rule under
 * {@code zae.limiter.web.rules}, and {@code zae.limiter.web.enabled} not {@code false}. Backs off when the
 * application defines its own {@link ReactiveRateLimitFilter} bean.
 */
@AutoConfiguration(after = ZaeLimiterReactiveAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(WebFilter.class)
@ConditionalOnBooleanProperty(name = "zae.limiter.web.enabled", matchIfMissing = true)
@ConditionalOnBean(ReactiveRateLimiter.class)
@Conditional(OnWebRulesCondition.class)
@EnableConfigurationProperties(ZaeLimiterWebProperties.class)
public class ZaeLimiterWebFluxAutoConfiguration {

    /** The filter, for every path; its rules decide which requests it limits. */
    @Bean
    @ConditionalOnMissingBean
    public ReactiveRateLimitFilter reactiveRateLimitFilter(ReactiveRateLimiter reactiveRateLimiter,
            ZaeLimiterWebProperties properties, ObjectProvider<RateLimitProblems> problems,
            ObjectProvider<MessageSource> messageSource, BeanFactory beanFactory, Environment environment) {
        return new ReactiveRateLimitFilter(reactiveRateLimiter, properties,
                RateLimitProblems.of(problems, messageSource, properties),
                ProblemWriters.reactive(beanFactory, environment));
    }
}
