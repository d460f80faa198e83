package dev.zaelimiter.docs;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Starts an application with the YAML of {@code docs/configuration.md}, exactly as the page shows it. */
class ConfigurationDocsTest {

    private static final Pattern YAML = Pattern.compile("<!-- yaml-example: ([\\w-]+) -->\\s*```yaml\\n(.*?)```",
            Pattern.DOTALL);

    static String yaml(String name) throws Exception {
        Path page = Path.of("../docs/configuration.md");
        Matcher m = YAML.matcher(Files.readString(page, StandardCharsets.UTF_8));
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return m.group(2);
            }
        }
        throw new AssertionError("no example " + name + " in " + page.toAbsolutePath());
    }

    @Test
    void theDocumentedDeclarationsStartAndAreApplied() throws Exception {
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("configuration.md",
                new ByteArrayResource(yaml("llm").getBytes(StandardCharsets.UTF_8)));
        MutableClock clock = MutableClock.start();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withBean(Clock.class, () -> clock)
                .withInitializer(context -> sources.forEach(s -> context.getEnvironment().getPropertySources()
                        .addFirst(s)))
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
