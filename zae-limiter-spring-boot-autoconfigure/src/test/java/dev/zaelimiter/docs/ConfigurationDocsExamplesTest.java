package dev.zaelimiter.docs;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.RateLimiterBuilderCustomizer;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java examples of {@code docs/configuration.md}. The code between {@code // tag::NAME[]} and
 * {@code // end::NAME[]} is what the page shows under {@code <!-- example: NAME -->}; {@code DocsSnippetsTest} in
 * zae-limiter-core checks that page and test agree.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConfigurationDocsExamplesTest {

    private static final Logger log = LoggerFactory.getLogger(ConfigurationDocsExamplesTest.class);

    @Configuration(proxyBeanMethods = false)
    static class LimiterTuning {

        // tag::builderCustomizer[]
        @Bean
        RateLimiterBuilderCustomizer limiterTuning() {
            return builder -> builder
                    .maxQueue(20)                        // at most 20 calls wait per bucket
                    .sleeper(duration -> {               // how waiting calls sleep
                        log.info("waiting {} for capacity", duration);
                        Thread.sleep(duration.toMillis());
                    });
        }
        // end::builderCustomizer[]
    }

    @Test
    void builderCustomizer(CapturedOutput output) {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withUserConfiguration(LimiterTuning.class)
                .withPropertyValues("zae.limiter.resources.api.limits.rps.capacity=1",
                        "zae.limiter.resources.api.limits.rps.refill-period=50ms")
                .run(context -> {
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    limiter.acquire("user-1", "api", Map.of("rps", 1L)).close();
                    limiter.acquire(AcquireRequest.of("user-1", "api").consume("rps", 1)
                            .maxWait(Duration.ofSeconds(2))).close();
                    assertThat(output.getOut()).as("the waiting call slept through the customized sleeper")
                            .contains("for capacity");
                });
    }
}
