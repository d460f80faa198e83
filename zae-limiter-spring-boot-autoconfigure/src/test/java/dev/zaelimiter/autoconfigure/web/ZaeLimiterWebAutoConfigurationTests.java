package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import jakarta.servlet.Filter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** When the filter is registered, and when it backs off. */
class ZaeLimiterWebAutoConfigurationTests {

    static final String[] RULE = {
            "zae.limiter.resources.api.limits.rpm.capacity=10",
            "zae.limiter.web.rules[0].paths[0]=/api/**",
            "zae.limiter.web.rules[0].resource=api",
            "zae.limiter.web.rules[0].entity.source=header",
            "zae.limiter.web.rules[0].entity.header=X-Api-Key",
            "zae.limiter.web.rules[0].consume.rpm=1"};

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterWebAutoConfiguration.class));

    @Test
    void registersTheFilterWhenRulesAreDeclared() {
        runner.withPropertyValues(RULE).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(FilterRegistrationBean.class)
                    .hasSingleBean(ZaeLimiterWebProperties.class);
            FilterRegistrationBean<?> registration = context.getBean(FilterRegistrationBean.class);
            assertThat(registration.getFilter()).isInstanceOf(RateLimitFilter.class);
            assertThat(registration.getOrder()).isEqualTo(ZaeLimiterWebProperties.DEFAULT_FILTER_ORDER);
            assertThat(registration.getFilterName()).isEqualTo("rateLimitFilter");
            RateLimitFilter filter = (RateLimitFilter) registration.getFilter();
            assertThat(filter.rules()).hasSize(1);
            assertThat(filter.rules().get(0).resource()).isEqualTo("api");
        });
    }

    @Test
    void takesTheConfiguredOrder() {
        runner.withPropertyValues(RULE).withPropertyValues("zae.limiter.web.filter-order=42").run(context ->
                assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(42));
    }

    @Test
    void bindsRulesWrittenAsYamlStyleLists() {
        runner.withPropertyValues(
                "zae.limiter.resources.api.limits.rpm.capacity=10",
                "zae.limiter.web.rules[0].paths=/api/**,/v2/**",
                "zae.limiter.web.rules[0].methods=get,POST",
                "zae.limiter.web.rules[0].resource=api",
                "zae.limiter.web.rules[0].entity.source=remote-address",
                "zae.limiter.web.rules[1].paths=/other/**",
                "zae.limiter.web.rules[1].resource=api",
                "zae.limiter.web.rules[1].entity.source=principal",
                "zae.limiter.web.rules[1].entity.default=anonymous").run(context -> {
                    RateLimitFilter filter = (RateLimitFilter) context.getBean(FilterRegistrationBean.class)
                            .getFilter();
                    assertThat(filter.rules()).hasSize(2);
                    assertThat(filter.rules().get(0).matchesMethod("GET")).isTrue();
                    assertThat(filter.rules().get(0).matchesMethod("DELETE")).isFalse();
                    assertThat(filter.rules().get(1).matchesMethod("DELETE")).isTrue();
                });
    }

    @Test
    void backsOffWhenTheApplicationRegistersTheFilter() {
        runner.withPropertyValues(RULE).withUserConfiguration(UserRegistration.class).run(context -> {
            assertThat(context).hasSingleBean(FilterRegistrationBean.class);
            assertThat(context.getBean(FilterRegistrationBean.class).getFilterName()).isEqualTo("mine");
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesTheFilterBean() {
        runner.withPropertyValues(RULE).withUserConfiguration(UserFilter.class).run(context -> {
            assertThat(context).hasSingleBean(RateLimitFilter.class).doesNotHaveBean(FilterRegistrationBean.class);
        });
    }

    @Test
    void keepsOtherFilterRegistrations() {
        runner.withPropertyValues(RULE).withUserConfiguration(OtherRegistration.class).run(context ->
                assertThat(context.getBeansOfType(FilterRegistrationBean.class)).hasSize(2));
    }

    @Test
    void absentWithoutRules() {
        runner.withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=10").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class)
                        .doesNotHaveBean(ZaeLimiterWebProperties.class));
    }

    @Test
    void absentWhenDisabled() {
        runner.withPropertyValues(RULE).withPropertyValues("zae.limiter.web.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void absentWithoutARateLimiter() {
        runner.withPropertyValues(RULE).withPropertyValues("zae.limiter.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimiter.class)
                        .doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void absentInANonWebApplication() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterWebAutoConfiguration.class))
                .withPropertyValues(RULE).run(context ->
                        assertThat(context).hasNotFailed().hasSingleBean(RateLimiter.class)
                                .doesNotHaveBean(FilterRegistrationBean.class)
                                .doesNotHaveBean(ZaeLimiterWebProperties.class));
    }

    @Test
    void absentInAReactiveApplication() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterWebAutoConfiguration.class))
                .withPropertyValues(RULE).run(context ->
                        assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void absentWhenServletClassesAreMissing() {
        runner.withPropertyValues(RULE).withClassLoader(new FilteredClassLoader(Filter.class)).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void absentWhenSpringWebIsMissing() {
        runner.withPropertyValues(RULE).withClassLoader(new FilteredClassLoader(OncePerRequestFilter.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void isListedInTheAutoConfigurationImports() throws Exception {
        try (var in = getClass().getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::trim).toList())
                    .contains(ZaeLimiterWebAutoConfiguration.class.getName());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserRegistration {

        @Bean
        FilterRegistrationBean<RateLimitFilter> myRateLimitFilter(RateLimiter limiter,
                ZaeLimiterWebProperties properties) {
            FilterRegistrationBean<RateLimitFilter> registration =
                    new FilterRegistrationBean<>(new RateLimitFilter(limiter, properties));
            registration.setName("mine");
            return registration;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserFilter {

        @Bean
        RateLimitFilter myRateLimitFilter(RateLimiter limiter, ZaeLimiterWebProperties properties) {
            return new RateLimitFilter(limiter, properties);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OtherRegistration {

        @Bean
        FilterRegistrationBean<OncePerRequestFilter> otherFilter() {
            return new FilterRegistrationBean<>(new OncePerRequestFilter() {
                @Override
                protected void doFilterInternal(jakarta.servlet.http.HttpServletRequest request,
                        jakarta.servlet.http.HttpServletResponse response, jakarta.servlet.FilterChain chain)
                        throws jakarta.servlet.ServletException, java.io.IOException {
                    chain.doFilter(request, response);
                }
            });
        }
    }

    @Test
    void withoutJacksonStartupFailsWithTheAdviceOfTheSpringBootLine() {
        String advice = SpringBootVersion.getVersion().startsWith("4.")
                ? "add spring-boot-starter-jackson (spring-boot-starter-webmvc brings it)"
                : "add spring-boot-starter-json (spring-boot-starter-web brings it)";
        runner.withPropertyValues(RULE)
                .withClassLoader(new FilteredClassLoader("com.fasterxml.jackson.databind", "tools.jackson.databind"))
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("writes its problem+json bodies with Jackson, which is not on the"
                                + " classpath: " + advice));
    }
}
