package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** A consumed limit that no declaration defines for its resource is reported at startup: a warning, or strictly an error. */
@ExtendWith(OutputCaptureExtension.class)
class ConsumeCheckTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class, AopAutoConfiguration.class,
                    ZaeLimiterAopAutoConfiguration.class))
            .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=5");

    private static final String[] RULE = {"zae.limiter.web.rules[0].paths[0]=/api/**",
            "zae.limiter.web.rules[0].resource=api", "zae.limiter.web.rules[0].entity.source=remote-address"};

    public static class Service {

        @RateLimited(resource = "api", entity = "#user", consume = @Consume(limit = "rpn"))
        public String call(String user) {
            return "ok";
        }
    }

    private static InvalidDeclarationException cause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidDeclarationException e) {
                return e;
            }
        }
        return null;
    }

    @Test
    void aRuleConsumingAnUndeclaredLimitIsAWarningByDefault(CapturedOutput output) {
        runner.withPropertyValues(RULE).withPropertyValues("zae.limiter.web.rules[0].consume.rpmm=1")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).contains("WARN").contains("zae.limiter.web.rules[0]")
                .contains("limit 'rpmm' of resource 'api'").contains("did you mean 'rpm'?");
    }

    @Test
    void aRuleConsumingAnUndeclaredLimitFailsStartupWhenStrict() {
        runner.withPropertyValues(RULE).withPropertyValues("zae.limiter.web.rules[0].consume.rpmm=1",
                "zae.limiter.strict-consume=true").run(context -> {
                    assertThat(context).hasFailed();
                    InvalidDeclarationException cause = cause(context.getStartupFailure());
                    assertThat(cause.property()).isEqualTo("zae.limiter.web.rules[0].consume.rpmm");
                    FailureAnalysis analysis = new InvalidDeclarationFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("did you mean 'rpm'?");
                    assertThat(analysis.getAction()).contains("zae.limiter.resources.api.limits.rpmm.capacity")
                            .contains("zae.limiter.strict-consume=false");
                });
    }

    @Test
    void aRateLimitedMethodConsumingAnUndeclaredLimitIsReported(CapturedOutput output) {
        runner.withBean(Service.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).contains("Service.call(String) consumes limit 'rpn'").contains("did you mean 'rpm'?");
        runner.withBean(Service.class).withPropertyValues("zae.limiter.strict-consume=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(cause(context.getStartupFailure()).property())
                    .isEqualTo("zae.limiter.resources.api.limits.rpn");
        });
    }

    @Test
    void limitsDeclaredAtAnyLevelCount(CapturedOutput output) {
        runner.withPropertyValues(RULE).withPropertyValues("zae.limiter.strict-consume=true",
                "zae.limiter.web.rules[0].consume.rpm=1", "zae.limiter.web.rules[0].consume.day=1",
                "zae.limiter.web.rules[0].consume.global=1", "zae.limiter.web.rules[0].consume.rpn=1",
                "zae.limiter.system.limits.global.capacity=100",
                "zae.limiter.entities.vip.resources.api.limits.day.capacity=100",
                "zae.limiter.entities.vip.resources.api.limits.day.reset-after=1d",
                "zae.limiter.entities.vip.resources._default_.limits.rpn.capacity=100")
                .withBean(Service.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).doesNotContain("consumes limit");
    }

    @Test
    void nothingIsReportedWhenNothingIsDeclared(CapturedOutput output) {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withPropertyValues(RULE).withPropertyValues("zae.limiter.web.rules[0].consume.rpm=1")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getOut()).doesNotContain("consumes limit");
    }
}
