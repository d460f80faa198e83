package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.autoconfigure.web.ZaeLimiterWebAutoConfiguration;
import dev.zaelimiter.autoconfigure.web.ZaeLimiterWebProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Settings written where containers write them (environment variables, system properties, command-line arguments)
 * override single entries of what the application's YAML declares, and keys that Spring's binder would rewrite stop
 * startup instead of being silently renamed.
 */
class PropertyOverridesTests {

    private static final String R = "zae.limiter.web.rules[0].";

    /** What application.yaml would hold: a rule and the limit it consumes. */
    private static final Map<String, Object> YAML = Map.of(
            "zae.limiter.resources.api.limits.rpm.capacity", 5,
            "zae.limiter.resources.api.limits.rpm.schedule[0].cron", "* 9-17 * * MON-FRI",
            "zae.limiter.resources.api.limits.rpm.schedule[0].tz", "UTC",
            "zae.limiter.resources.api.limits.rpm.schedule[0].scale", 2,
            R + "paths[0]", "/api/**",
            R + "resource", "api",
            R + "entity.source", "header",
            R + "entity.header", "X-Api-Key",
            R + "consume.rpm", 1);

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterWebAutoConfiguration.class));

    private WebApplicationContextRunner withSources(PropertySource<?> override) {
        return runner.withInitializer(context -> {
            context.getEnvironment().getPropertySources().addLast(new MapPropertySource("application.yaml", YAML));
            context.getEnvironment().getPropertySources().addFirst(override);
        });
    }

    private static PropertySource<?> source(String kind, String name, String value) {
        return switch (kind) {
            case "environment" -> new SystemEnvironmentPropertySource(
                    StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(name, value));
            case "system" -> new MapPropertySource(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
                    Map.of(name, value));
            default -> new SimpleCommandLinePropertySource("--" + name + "=" + value);
        };
    }

    @ParameterizedTest
    @CsvSource({
            "environment, ZAE_LIMITER_WEB_RULES_0_CONSUME_RPM",
            "system, zae.limiter.web.rules[0].consume.rpm",
            "command-line, zae.limiter.web.rules[0].consume.rpm"})
    void anOverrideOfOneRuleEntryKeepsTheRestOfTheRule(String kind, String name) {
        withSources(source(kind, name, "2")).run(context -> {
            assertThat(context).hasNotFailed();
            ZaeLimiterWebProperties.Rule rule = context.getBean(ZaeLimiterWebProperties.class).getRules().get(0);
            assertThat(rule.getConsume()).containsExactly(Map.entry("rpm", 2L));
            assertThat(rule.getPaths()).containsExactly("/api/**");
            assertThat(rule.getResource()).isEqualTo("api");
            assertThat(rule.getEntity().getHeader()).isEqualTo("X-Api-Key");
        });
    }

    @ParameterizedTest
    @CsvSource({
            "environment, ZAE_LIMITER_RESOURCES_API_LIMITS_RPM_SCHEDULE_0_SCALE",
            "system, zae.limiter.resources.api.limits.rpm.schedule[0].scale",
            "command-line, zae.limiter.resources.api.limits.rpm.schedule[0].scale"})
    void anOverrideOfOneScheduleEntryKeepsItsCronAndZone(String kind, String name) {
        withSources(source(kind, name, "0.5")).run(context -> {
            assertThat(context).hasNotFailed();
            ZaeLimiterProperties.ScheduleDeclaration entry = context.getBean(ZaeLimiterProperties.class)
                    .getResources().get("api").getLimits().get("rpm").getSchedule().get(0);
            assertThat(entry.getScale()).isEqualTo(0.5);
            assertThat(entry.getCron()).isEqualTo("* 9-17 * * MON-FRI");
            assertThat(entry.getTz()).isEqualTo("UTC");
        });
    }

    @Test
    void aListWrittenWholeByTheOverrideReplacesTheDeclaredEntries() {
        withSources(source("environment", "ZAE_LIMITER_WEB_RULES_0_PATHS", "/v2/**,/v3/**")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ZaeLimiterWebProperties.class).getRules().get(0).getPaths())
                    .containsExactly("/v2/**", "/v3/**");
        });
    }

    @Test
    void aMisspelledOverrideIsStillReported() {
        withSources(source("environment", "ZAE_LIMITER_WEB_RULES_0_ENTITY_SORCE", "principal")).run(context -> {
            assertThat(rootCause(context.getStartupFailure())).isInstanceOf(UnknownPropertiesException.class);
        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "zae.limiter.resources.openai/gpt-4o.limits.rpm.capacity=1|zae.limiter.resources.openai/gpt-4o"
                    + "|openai/gpt-4o|openaigpt-4o",
            "zae.limiter.entities.org:acme.name=Acme|zae.limiter.entities.org:acme|org:acme|orgacme",
            "zae.limiter.entities.a#b.name=AB|zae.limiter.entities.a#b|a#b|ab",
            "zae.limiter.entities.acme.resources.openai/gpt-4o.limits.rpm.capacity=1"
                    + "|zae.limiter.entities.acme.resources.openai/gpt-4o|openai/gpt-4o|openaigpt-4o",
            "zae.limiter.client.targets.up/stream.resource=api|zae.limiter.client.targets.up/stream|up/stream"
                    + "|upstream"})
    void aMapKeyThatSpringWouldRewriteStopsStartupShowingTheBracketedForm(String setting, String property,
            String key, String read) {
        String[] nameAndValue = setting.split("=", 2);
        runner.withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=5")
                .withInitializer(context -> context.getEnvironment().getPropertySources().addLast(
                        new MapPropertySource("application.yaml", Map.of(nameAndValue[0], nameAndValue[1]))))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootCause(context.getStartupFailure()))
                            .isInstanceOf(InvalidDeclarationException.class);
                    InvalidDeclarationException e = (InvalidDeclarationException) rootCause(
                            context.getStartupFailure());
                    assertThat(e.property()).isEqualTo(property);
                    assertThat(e.reason()).contains("'" + read + "'");
                    FailureAnalysis analysis = new InvalidDeclarationFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis.getAction()).contains("\"[" + key + "]\"");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"zae.limiter.resources.[openai/gpt-4o].limits.rpm.capacity=1",
            "zae.limiter.resources[openai/gpt-4o].limits.rpm.capacity=1"})
    void theBracketedFormKeepsTheKey(String setting) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ZaeLimiterProperties.class).getResources()).containsOnlyKeys("openai/gpt-4o");
        });
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
