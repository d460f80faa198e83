package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import jakarta.servlet.Filter;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.MessageSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.web.filter.OncePerRequestFilter;


/**
 * Auto-configuration of the {@link RateLimitFilter} in a servlet web application that has a {@link RateLimiter} bean
 * and declares at least one rule under {@code zae.limiter.web.rules}. The filter is registered with the order
 * {@code zae.limiter.web.filter-order}; it backs off when the application defines its own {@link RateLimitFilter}
 * bean or {@code FilterRegistrationBean<RateLimitFilter>}, and when {@code zae.limiter.web.enabled=false}.
 */
@AutoConfiguration(after = ZaeLimiterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Filter.class, OncePerRequestFilter.class})
@ConditionalOnBooleanProperty(name = "zae.limiter.web.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimiter.class)
@Conditional(OnWebRulesCondition.class)
@EnableConfigurationProperties(ZaeLimiterWebProperties.class)
public class ZaeLimiterWebAutoConfiguration {

    /** The filter, registered for every path; its rules decide which requests it limits. */
    @Bean
    @ConditionalOnMissingRateLimitFilter
    public FilterRegistrationBean<RateLimitFilter> rateLimitFilterRegistration(RateLimiter rateLimiter,
            ZaeLimiterWebProperties properties, ObjectProvider<RateLimitProblems> problems,
            ObjectProvider<MessageSource> messageSource, BeanFactory beanFactory, Environment environment) {
        RateLimitFilter filter = new RateLimitFilter(rateLimiter, properties,
                RateLimitProblems.of(problems, messageSource, properties),
                ProblemWriters.servlet(beanFactory, environment));
        FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("rateLimitFilter");
        registration.setOrder(properties.getFilterOrder());
        return registration;
    }
}
