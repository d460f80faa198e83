package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import java.lang.reflect.Constructor;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every kind of bad rule fails startup with a message that names the property and says what to write. */
class BadRuleTests {

    private static final String R = "zae.limiter.web.rules[0].";
    private static final String SECRET = "do-not-print-this-secret";

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterWebAutoConfiguration.class))
            .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=5",
                    R + "paths[0]=/api/**", R + "resource=api", R + "entity.source=header",
                    R + "entity.header=X-Api-Key", R + "consume.rpm=1");

    static Stream<Arguments> badRules() {
        return Stream.of(
                Arguments.of(new String[] {R + "max-wait=-2s"}, R + "max-wait", "negative"),
                Arguments.of(new String[] {R + "paths[0]=/api/**/items"}, R + "paths[0]", "not a valid PathPattern"),
                Arguments.of(new String[] {R + "paths[0]=/api/{id"}, R + "paths[0]", "not a valid PathPattern"),
                Arguments.of(new String[] {R + "paths[0]=api/**"}, R + "paths[0]", "starts with /"),
                Arguments.of(new String[] {"zae.limiter.web.rules[2].resource=api",
                        "zae.limiter.web.rules[2].entity.source=principal"}, "zae.limiter.web.rules[2].paths",
                        "at least one path"),
                Arguments.of(new String[] {R + "methods[0]=FETCH"}, R + "methods[0]", "not an HTTP method"),
                Arguments.of(new String[] {R + "resource= "}, R + "resource", "needs the resource"),
                Arguments.of(new String[] {R + "resource=bad resource"}, R + "resource", "resource name"),
                Arguments.of(new String[] {R + "entity.source=cookie"}, R + "entity.source",
                        "not an entity source"),
                Arguments.of(new String[] {R + "entity.source="}, R + "entity.source", "needs an entity source"),
                Arguments.of(new String[] {R + "entity.header="}, R + "entity.header", "name of the request header"),
                Arguments.of(new String[] {R + "entity.header=X Api Key"}, R + "entity.header",
                        "not a valid header name"),
                Arguments.of(new String[] {R + "entity.source=expression"}, R + "entity.expression",
                        "needs a SpEL expression"),
                Arguments.of(new String[] {R + "entity.source=expression", R + "entity.expression=getHeader('X'"},
                        R + "entity.expression", "not a valid SpEL expression"),
                Arguments.of(new String[] {R + "entity.hash.enabled=true"}, R + "entity.hash.key", "no key is set"),
                Arguments.of(new String[] {R + "entity.hash.enabled=true", R + "entity.hash.key=short"},
                        R + "entity.hash.key", "shorter than 16"),
                Arguments.of(new String[] {R + "entity.default=-anon"}, R + "entity.default", "entity id"),
                Arguments.of(new String[] {R + "consume.[1rpm]=1"}, R + "consume.1rpm", "starts with a letter"),
                Arguments.of(new String[] {R + "consume.rpm=-1"}, R + "consume.rpm", "whole number from 0"),
                Arguments.of(new String[] {"zae.limiter.web.unavailable-retry-after=-1s"},
                        "zae.limiter.web.unavailable-retry-after", "zero or more"));
    }

    @ParameterizedTest
    @MethodSource("badRules")
    void failsStartupNamingTheProperty(String[] properties, String property, String says) {
        runner.withPropertyValues(properties).withPropertyValues("zae.limiter.web.rules[1].paths[0]=/x/**",
                "zae.limiter.web.rules[1].resource=api", "zae.limiter.web.rules[1].entity.source=principal",
                "zae.limiter.web.rules[1].entity.hash.key=" + SECRET).run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    InvalidDeclarationException cause = findCause(failure);
                    assertThat(cause).as("startup failure %s", failure).isNotNull();
                    assertThat(cause.property()).isEqualTo(property);
                    assertThat(cause.reason()).contains(says);
                    FailureAnalysis analysis = analyzer().analyze(failure);
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains(property).contains(says);
                    assertThat(analysis.getAction()).contains(property);
                    assertThat(analysis.getDescription()).doesNotContain(SECRET);
                });
    }

    @Test
    void neverPrintsTheHashKey() {
        runner.withPropertyValues(R + "entity.hash.enabled=true", R + "entity.hash.key=shortsecret").run(context -> {
            assertThat(context).hasFailed();
            assertThat(String.valueOf(context.getStartupFailure())).doesNotContain("shortsecret");
            assertThat(analyzer().analyze(context.getStartupFailure()).getDescription())
                    .doesNotContain("shortsecret");
        });
    }

    private static FailureAnalyzer analyzer() throws Exception {
        Class<?> type = Class.forName("dev.zaelimiter.autoconfigure.InvalidDeclarationFailureAnalyzer");
        Constructor<?> constructor = type.getDeclaredConstructor();
        constructor.setAccessible(true);
        return (FailureAnalyzer) constructor.newInstance();
    }

    private static InvalidDeclarationException findCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidDeclarationException e) {
                return e;
            }
        }
        return null;
    }
}
