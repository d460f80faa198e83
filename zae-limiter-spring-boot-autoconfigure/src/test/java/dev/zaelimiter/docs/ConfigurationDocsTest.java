package dev.zaelimiter.docs;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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

    @Test
    void theDocumentedFixedWindowsStartAndAreApplied() {
        MutableClock clock = new MutableClock(Instant.parse("2026-06-15T10:05:10Z"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withBean(Clock.class, () -> clock)
                .withInitializer(DocsYaml.initializer("configuration.md", "windows"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThat(limiter.admin().getResourceDefaults("sms")).containsExactly(
                            Limit.fixedWindow("per-second", 5, Duration.ofSeconds(1)),
                            Limit.fixedWindow("per10s", 20, Duration.ofSeconds(10)),
                            Limit.fixedWindow("per-minute", 100, Duration.ofMinutes(1),
                                    Instant.parse("2026-01-01T00:00:30Z")),
                            Limit.fixedWindow("metered", 1000, Duration.ofHours(1)).soft(),
                            Limit.quota("per-clock-minute", 200, "* * * * *", ZoneOffset.UTC));

                    limiter.acquire("user-1", "sms", Map.of("per-minute", 100L, "per10s", 20L)).close();
                    RateLimitExceededException e = catchThrowableOfType(RateLimitExceededException.class,
                            () -> limiter.acquire("user-1", "sms", Map.of("per-minute", 1L, "per10s", 1L)));
                    assertThat(e.retryAfter()).as("the minute window ends at 10:05:30").isEqualTo(
                            Duration.ofSeconds(20));
                    clock.set(Instant.parse("2026-06-15T10:05:30Z"));
                    assertThat(limiter.available("user-1", "sms"))
                            .containsEntry("per-minute", 100L).containsEntry("per10s", 20L);
                });
    }
}
