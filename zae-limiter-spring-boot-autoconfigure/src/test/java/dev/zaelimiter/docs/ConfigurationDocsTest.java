package dev.zaelimiter.docs;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Starts an application with the YAML of {@code docs/configuration.md}, exactly as the page shows it. */
class ConfigurationDocsTest {

    @Test
    void theDocumentedDeclarationsStartAndAreApplied() throws Exception {
        MutableClock clock = MutableClock.start();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withBean(Clock.class, () -> clock)
                .withInitializer(DocsYaml.initializer("configuration.md", "llm"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    var admin = limiter.admin();
                    assertThat(admin.getSystemDefaults()).containsExactly(Limit.perMinute("rpm", 60));
                    assertThat(admin.getResourceDefaults("gpt-4")).hasSize(4);
                    assertThat(admin.getResourceDefaults("openai/gpt-4o")).singleElement()
                            .satisfies(l -> assertThat(l.schedule()).hasSize(2));
                    assertThat(admin.getResourceDisabled("legacy-api")).contains(DisabledMode.BYPASS);
                    assertThat(admin.getEntity("key-acme-web"))
                            .contains(new Entity("key-acme-web", null, "org-acme", true));
                    assertThat(admin.getLimits("key-acme-web", "gpt-4")).contains(
                            Limit.sessionQuota("session", 500, Duration.ofHours(5)));

                    limiter.acquire("key-acme-web", "gpt-4", Map.of("rpm", 1L, "tpm", 15_000L, "session", 1L));
                    assertThat(limiter.available("org-acme", "gpt-4")).containsEntry("tpm", 185_000L);
                });
    }
}
