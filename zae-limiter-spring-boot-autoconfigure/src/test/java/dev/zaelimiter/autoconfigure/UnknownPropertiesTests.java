package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** A key under zae.limiter that is no setting stops startup, naming its full path and the key it probably meant. */
class UnknownPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class));

    private static UnknownPropertiesException cause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UnknownPropertiesException e) {
                return e;
            }
        }
        return null;
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "zae.limiter.resources.gpt-4.limits.rpm.refil-amount=1|zae.limiter.resources.gpt-4.limits.rpm.refil-amount"
                    + "|zae.limiter.resources.gpt-4.limits.rpm.refill-amount",
            "zae.limiter.resources.gpt-4.limits.tpm.capacty=20|zae.limiter.resources.gpt-4.limits.tpm.capacty"
                    + "|zae.limiter.resources.gpt-4.limits.tpm.capacity",
            "zae.limiter.system.limits.rpm.burts=20|zae.limiter.system.limits.rpm.burts"
                    + "|zae.limiter.system.limits.rpm.burst",
            "zae.limiter.entities.user-1.resources.gpt-4.limits.rpm.max-in-fligth=2"
                    + "|zae.limiter.entities.user-1.resources.gpt-4.limits.rpm.max-in-fligth"
                    + "|zae.limiter.entities.user-1.resources.gpt-4.limits.rpm.max-in-flight",
            "zae.limiter.resources.gpt-4.limits.rpm.schedule[0].tzz=UTC"
                    + "|zae.limiter.resources.gpt-4.limits.rpm.schedule[0].tzz"
                    + "|zae.limiter.resources.gpt-4.limits.rpm.schedule[0].tz",
            "zae.limiter.stor=memory|zae.limiter.stor|zae.limiter.store",
            "zae.limiter.dynamodb.tabel=t|zae.limiter.dynamodb.tabel|zae.limiter.dynamodb.table",
            "zae.limiter.web.rules[0].entity.sorce=header|zae.limiter.web.rules[0].entity.sorce"
                    + "|zae.limiter.web.rules[0].entity.source",
            "zae.limiter.web.header=none|zae.limiter.web.header|zae.limiter.web.headers",
            "zae.limiter.aop.ordr=1|zae.limiter.aop.ordr|zae.limiter.aop.order"})
    void aMisspelledKeyFailsStartupNamingItAndTheKeyItProbablyMeant(String setting, String property,
            String meant) {
        runner.withPropertyValues("zae.limiter.resources.gpt-4.limits.rpm.capacity=10",
                "zae.limiter.resources.gpt-4.limits.tpm.capacity=10", "zae.limiter.system.limits.rpm.capacity=10",
                "zae.limiter.entities.user-1.resources.gpt-4.limits.rpm.capacity=1", setting).run(context -> {
                    assertThat(context).hasFailed();
                    UnknownPropertiesException unknown = cause(context.getStartupFailure());
                    assertThat(unknown).as("startup failure %s", context.getStartupFailure()).isNotNull();
                    assertThat(unknown.unknown()).singleElement().satisfies(u -> {
                        assertThat(u.property()).isEqualTo(property);
                        assertThat(u.suggestion()).isEqualTo(meant);
                    });
                    FailureAnalysis analysis = new UnknownPropertiesFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains(property).contains("did you mean " + meant);
                    assertThat(analysis.getAction()).contains("Rename '" + property + "' to '" + meant + "'");
                });
    }

    /** Settings another part of the starter (or an extension) registers under zae.limiter. */
    @ConfigurationProperties("zae.limiter.extra-part")
    public static class ExtraProperties {

        private boolean includeDetails;

        public boolean isIncludeDetails() {
            return includeDetails;
        }

        public void setIncludeDetails(boolean includeDetails) {
            this.includeDetails = includeDetails;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(ExtraProperties.class)
    static class Extra {
    }

    @Test
    void settingsOfOtherRegisteredPropertiesClassesUnderZaeLimiterAreKnownToo() {
        runner.withUserConfiguration(Extra.class).withPropertyValues("zae.limiter.extra-part.include-details=true")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withUserConfiguration(Extra.class).withPropertyValues("zae.limiter.extra-part.include-detail=true")
                .run(context -> assertThat(cause(context.getStartupFailure()).unknown()).singleElement()
                        .satisfies(u -> assertThat(u.suggestion())
                                .isEqualTo("zae.limiter.extra-part.include-details")));
    }

    @Test
    void aMisspelledCapacityIsReportedAsATypoNotAsAMissingCapacity() {
        runner.withPropertyValues("zae.limiter.resources.gpt-4.limits.rpm.capacty=20").run(context -> {
            assertThat(context).hasFailed();
            assertThat(cause(context.getStartupFailure())).isNotNull();
        });
    }

    @Test
    void aKeyWithNothingCloseListsTheValidSettings() {
        runner.withPropertyValues("zae.limiter.resources.api.banana=1").run(context -> {
            assertThat(context).hasFailed();
            UnknownPropertiesException unknown = cause(context.getStartupFailure());
            assertThat(unknown.unknown()).singleElement().satisfies(u -> {
                assertThat(u.suggestion()).isNull();
                assertThat(u.parent()).isEqualTo("zae.limiter.resources.api");
                assertThat(u.valid()).contains("limits", "cascade", "disabled");
            });
            FailureAnalysis analysis = new UnknownPropertiesFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getAction()).contains("zae.limiter.resources.api.banana").contains("limits");
        });
    }

    @Test
    void aNameWithADotOutsideBracketsIsToldToUseThem() {
        runner.withPropertyValues("zae.limiter.resources.openai.gpt-4.limits.rpm.capacity=5").run(context -> {
            FailureAnalysis analysis = new UnknownPropertiesFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getAction()).contains("zae.limiter.resources.openai.gpt-4.limits.rpm.capacity")
                    .contains("\"[openai.gpt-4]\"");
        });
    }

    @Test
    void everyUnknownKeyIsReportedAtOnce() {
        runner.withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=5",
                "zae.limiter.resources.api.limits.rpm.refil-period=1m", "zae.limiter.namespce=x").run(context -> {
                    UnknownPropertiesException unknown = cause(context.getStartupFailure());
                    assertThat(unknown.unknown()).extracting(UnknownPropertiesException.Unknown::suggestion)
                            .containsExactly("zae.limiter.namespace",
                                    "zae.limiter.resources.api.limits.rpm.refill-period");
                });
    }

    @Test
    void everyKnownKeyStarts() {
        runner.withPropertyValues("zae.limiter.enabled=true", "zae.limiter.store=memory",
                "zae.limiter.namespace=n", "zae.limiter.on-unavailable=allow", "zae.limiter.stamp-ttl=30s",
                "zae.limiter.store-timeout=1s", "zae.limiter.circuit-breaker.enabled=true",
                "zae.limiter.circuit-breaker.failure-threshold=3", "zae.limiter.circuit-breaker.cool-down=1s",
                "zae.limiter.dynamodb.table=t", "zae.limiter.dynamodb.create-table=false",
                "zae.limiter.dynamodb.cascade-write=compensating",
                "zae.limiter.system.limits.rpm.capacity=100",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.capacity=10",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.refill-amount=5",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.refill-period=1s",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.burst=20",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.soft=false",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.schedule[0].cron=* 9-17 * * MON-FRI",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.schedule[0].tz=UTC",
                "zae.limiter.resources.[openai/gpt-4].limits.tpm.schedule[0].scale=0.5",
                "zae.limiter.resources.[openai/gpt-4].limits.day.capacity=1000",
                "zae.limiter.resources.[openai/gpt-4].limits.day.reset-schedule[0].cron=0 0 * * *",
                "zae.limiter.resources.[openai/gpt-4].limits.day.reset-schedule[0].tz=UTC",
                "zae.limiter.resources.[openai/gpt-4].limits.slots.max-in-flight=3",
                "zae.limiter.resources.[openai/gpt-4].limits.slots.lease-timeout=1m",
                "zae.limiter.resources.[openai/gpt-4].cascade=true",
                "zae.limiter.resources.[openai/gpt-4].disabled=enabled",
                "zae.limiter.entities.org.name=Org", "zae.limiter.entities.[user.1].parent=org",
                "zae.limiter.entities.[user.1].cascade=true", "zae.limiter.entities.org.disabled=enabled",
                "zae.limiter.entities.[user.1].resources._default_.limits.rpm.capacity=5",
                "zae.limiter.entities.[user.1].resources.[openai/gpt-4].limits.session.capacity=5",
                "zae.limiter.entities.[user.1].resources.[openai/gpt-4].limits.session.reset-after=1h",
                "zae.limiter.web.enabled=true", "zae.limiter.web.headers=none", "zae.limiter.web.filter-order=1",
                "zae.limiter.web.exception-handler=true", "zae.limiter.web.unavailable-retry-after=2s",
                "zae.limiter.web.rules[0].paths[0]=/api/**", "zae.limiter.web.rules[0].methods[0]=GET",
                "zae.limiter.web.rules[0].resource=api", "zae.limiter.web.rules[0].entity.source=header",
                "zae.limiter.web.rules[0].entity.header=X-Api-Key", "zae.limiter.web.rules[0].entity.default=anon",
                "zae.limiter.web.rules[0].entity.hash.enabled=false",
                "zae.limiter.web.rules[0].consume.rpm=1", "zae.limiter.web.rules[0].max-wait=0s",
                "zae.limiter.web.rules[0].on-unavailable=allow",
                "zae.limiter.client.targets.provider.resource=api",
                "zae.limiter.client.targets.provider.entity.id=shared",
                "zae.limiter.client.targets.provider.on-unavailable=block",
                "zae.limiter.aop.enabled=true", "zae.limiter.aop.order=5", "zae.limiter.metrics.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RateLimiter.class);
                });
    }
}
