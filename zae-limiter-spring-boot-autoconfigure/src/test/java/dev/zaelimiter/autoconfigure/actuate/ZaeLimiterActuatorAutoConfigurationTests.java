package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ImportHealth;
import dev.zaelimiter.autoconfigure.ImportedAutoConfigurations;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class ZaeLimiterActuatorAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterActuatorAutoConfiguration.class));

    private final ApplicationContextRunner exposed = runner
            .withPropertyValues("management.endpoints.web.exposure.include=ratelimits");

    @Test
    void endpointAndHealthIndicatorWhenTheEndpointIsExposed() {
        exposed.run(context -> {
            assertThat(context).hasSingleBean(RateLimitsEndpoint.class).hasSingleBean(ZaeLimiterHealthIndicator.class);
            assertThat(context).hasBean("zaeLimiterHealthIndicator");
        });
    }

    @Test
    void endpointIsExposedOverJmxOnlyWhenAsked() {
        runner.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=ratelimits")
                .run(context -> assertThat(context).hasSingleBean(RateLimitsEndpoint.class));
    }

    @Test
    void noEndpointWhenItIsNotExposed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class)
                .hasSingleBean(ZaeLimiterHealthIndicator.class));
    }

    @Test
    void noEndpointWhenItsAccessIsNone() {
        exposed.withPropertyValues("management.endpoint.ratelimits.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class));
    }

    @Test
    void noHealthIndicatorWhenItIsDisabled() {
        exposed.withPropertyValues("management.health.zaelimiter.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ZaeLimiterHealthIndicator.class)
                        .hasSingleBean(RateLimitsEndpoint.class));
    }

    @Test
    void noHealthIndicatorWhenDefaultIndicatorsAreDisabled() {
        runner.withPropertyValues("management.health.defaults.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ZaeLimiterHealthIndicator.class));
    }

    @Test
    void healthIndicatorOnWhenDefaultsAreOffButItIsEnabled() {
        runner.withPropertyValues("management.health.defaults.enabled=false",
                        "management.health.zaelimiter.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(ZaeLimiterHealthIndicator.class));
    }

    @Test
    void backsOffWhenTheApplicationDefinesTheEndpoint() {
        exposed.withBean("myEndpoint", RateLimitsEndpoint.class,
                        () -> new RateLimitsEndpoint(RateLimiter.builder().build(), null))
                .run(context -> assertThat(context).hasSingleBean(RateLimitsEndpoint.class).hasBean("myEndpoint"));
    }

    @Test
    void backsOffWhenTheApplicationDefinesTheHealthIndicator() {
        HealthReading.withOwnIndicator(runner, "zaeLimiterHealthIndicator")
                .run(context -> assertThat(context).doesNotHaveBean(ZaeLimiterHealthIndicator.class));
        runner.withBean("myIndicator", ZaeLimiterHealthIndicator.class,
                        () -> new ZaeLimiterHealthIndicator(RateLimiter.builder().build()))
                .run(context -> assertThat(context).hasSingleBean(ZaeLimiterHealthIndicator.class)
                        .hasBean("myIndicator"));
    }

    @Test
    void nothingWithoutARateLimiter() {
        exposed.withPropertyValues("zae.limiter.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class)
                        .doesNotHaveBean(ZaeLimiterHealthIndicator.class));
    }

    @Test
    void usesTheApplicationsRateLimiter() {
        RateLimiter own = RateLimiter.builder().build();
        exposed.withPropertyValues("zae.limiter.enabled=false")
                .withBean(RateLimiter.class, () -> own)
                .run(context -> {
                    assertThat(context).hasSingleBean(RateLimitsEndpoint.class)
                            .hasSingleBean(ZaeLimiterHealthIndicator.class);
                    RateLimitsEndpoint.RateLimitsDescriptor list = context.getBean(RateLimitsEndpoint.class)
                            .rateLimits();
                    assertThat(list.resources()).isEmpty();
                    assertThat(list.entities()).isEmpty();
                });
    }

    @Test
    void nothingWithoutTheActuator() {
        exposed.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RateLimiter.class);
                    assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class)
                            .doesNotHaveBean(ZaeLimiterHealthIndicator.class);
                });
    }

    @Test
    void contributesToTheHealthEndpointAsZaeLimiter() {
        runner.withConfiguration(ImportedAutoConfigurations.of(ImportHealth.class))
                .run(context -> {
                    Object indicator = HealthReading.contributor(context, "zaeLimiter");
                    assertThat(indicator).isInstanceOf(ZaeLimiterHealthIndicator.class);
                    assertThat(HealthReading.of(indicator).status()).isEqualTo("UP");
                });
    }
}
