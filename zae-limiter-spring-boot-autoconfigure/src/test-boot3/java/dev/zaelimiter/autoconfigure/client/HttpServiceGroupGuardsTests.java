package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Spring Boot 3.5 has no HTTP service groups: a target naming some stops startup, saying what to do instead. */
class HttpServiceGroupGuardsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterClientAutoConfiguration.class))
            .withPropertyValues("zae.limiter.resources.provider.limits.rpm.capacity=100",
                    "zae.limiter.client.targets.openai.resource=provider",
                    "zae.limiter.client.targets.openai.entity.id=shared",
                    "zae.limiter.client.targets.openai.consume.rpm=1");

    @Test
    void aTargetWithGroupsFailsStartupNamingThePropertyAndTheWayOut() {
        runner.withPropertyValues("zae.limiter.client.targets.openai.groups=provider").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOfSatisfying(InvalidDeclarationException.class,
                        e -> {
                            assertThat(e.property()).isEqualTo("zae.limiter.client.targets.openai.groups");
                            assertThat(e.action()).contains("outboundRateLimits.interceptor(\"openai\")");
                        }));
    }

    @Test
    void targetsWithoutGroupsStart() {
        runner.run(context -> assertThat(context).hasNotFailed().hasSingleBean(OutboundRateLimits.class));
    }
}
