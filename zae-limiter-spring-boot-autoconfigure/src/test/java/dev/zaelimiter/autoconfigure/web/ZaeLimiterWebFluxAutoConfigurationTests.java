package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

import static org.assertj.core.api.Assertions.assertThat;

/** When the WebFlux filter is registered, and that each stack gets only its own filter. */
class ZaeLimiterWebFluxAutoConfigurationTests {

    private static final String R = "zae.limiter.web.rules[0].";
    private static final String[] RULE = {"zae.limiter.resources.api.limits.rpm.capacity=2", R + "paths[0]=/api/**",
            R + "resource=api", R + "consume.rpm=1", R + "entity.source=header", R + "entity.header=X-Api-Key"};

    private static final AutoConfigurations ALL = AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
            ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterWebAutoConfiguration.class,
            ZaeLimiterWebFluxAutoConfiguration.class, ZaeLimiterMvcAutoConfiguration.class,
            ZaeLimiterWebFluxExceptionAutoConfiguration.class);

    private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
            .withConfiguration(ALL);

    @Test
    void aReactiveApplicationWithRulesGetsTheWebFilterAndNoServletFilter() {
        reactive.withPropertyValues(RULE).run(context -> {
            assertThat(context).hasSingleBean(ReactiveRateLimitFilter.class)
                    .hasSingleBean(ReactiveRateLimiter.class)
                    .hasSingleBean(ReactiveRateLimitExceptionHandler.class)
                    .doesNotHaveBean(FilterRegistrationBean.class);
            assertThat(context.getBean(ReactiveRateLimitFilter.class).getOrder()).isEqualTo(-90);
            assertThat(context.getBean(ReactiveRateLimiter.class).offloads()).as("in-memory store: inline")
                    .isFalse();
        });
    }

    @Test
    void aServletApplicationGetsNoWebFilter() {
        new WebApplicationContextRunner().withConfiguration(ALL).withPropertyValues(RULE).run(context ->
                assertThat(context).hasSingleBean(FilterRegistrationBean.class)
                        .doesNotHaveBean(ReactiveRateLimitFilter.class));
    }

    @Test
    void aServletApplicationWithoutReactorOrWebFluxStarts() {
        new WebApplicationContextRunner().withConfiguration(ALL).withPropertyValues(RULE)
                .withClassLoader(new FilteredClassLoader("reactor.", "org.springframework.web.reactive.",
                        "org.springframework.web.server."))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(FilterRegistrationBean.class)
                        .doesNotHaveBean(ReactiveRateLimiter.class));
    }

    @Test
    void noRulesDisabledOrTheApplicationsOwnFilterBacksOff() {
        reactive.run(context -> assertThat(context).doesNotHaveBean(ReactiveRateLimitFilter.class));
        reactive.withPropertyValues(RULE).withPropertyValues("zae.limiter.web.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ReactiveRateLimitFilter.class));
        reactive.withPropertyValues(RULE).withBean("mine", ReactiveRateLimitFilter.class,
                () -> new ReactiveRateLimitFilter(ReactiveRateLimiter.of(RateLimiter.builder().build(), false),
                        new ZaeLimiterWebProperties(), new RateLimitProblems(null, true), problem -> new byte[0]))
                .run(context -> assertThat(context).getBeans(ReactiveRateLimitFilter.class).containsOnlyKeys("mine"));
    }

    @Test
    void aBadRuleFailsStartupNamingTheProperty() {
        reactive.withPropertyValues(RULE).withPropertyValues(R + "paths[0]=api").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(InvalidDeclarationException.class)
                        .hasMessageContaining("zae.limiter.web.rules[0].paths[0]"));
    }
}
