package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(OutputCaptureExtension.class)
class ZaeLimiterAopAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterAopAutoConfiguration.class))
            .withPropertyValues("zae.limiter.store=memory", "zae.limiter.resources.chat.limits.rpm.capacity=1")
            .withUserConfiguration(ServiceConfiguration.class);

    @Test
    void appliesAndProxiesAnnotatedBeans() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RateLimitedOperationSource.class)
                    .hasSingleBean(RateLimitedInterceptor.class)
                    .hasSingleBean(RateLimitedAdvisor.class)
                    .hasSingleBean(ZaeLimiterAopProperties.class);
            assertThat(context.getBean(RateLimitedAdvisor.class).getOrder())
                    .isEqualTo(RateLimitedAdvisor.DEFAULT_ORDER);
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isAopProxy(greeter)).isTrue();
            assertThat(greeter.greet("alice")).isEqualTo("hello alice");
            assertThatThrownBy(() -> greeter.greet("alice")).isInstanceOf(RateLimitExceededException.class);
            assertThat(AopUtils.isAopProxy(context.getBean(Plain.class))).isFalse();
        });
    }

    @Test
    void worksWithoutSpringBootsAopAutoConfiguration() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterAopAutoConfiguration.class))
                .withPropertyValues("zae.limiter.store=memory", "zae.limiter.resources.chat.limits.rpm.capacity=1")
                .withUserConfiguration(ServiceConfiguration.class)
                .run(context -> {
                    Greeter greeter = context.getBean(Greeter.class);
                    assertThat(AopUtils.isAopProxy(greeter)).isTrue();
                    greeter.greet("bob");
                    assertThatThrownBy(() -> greeter.greet("bob")).isInstanceOf(RateLimitExceededException.class);
                });
    }

    @Test
    void readsAnnotationsOfInterfaceMethodsThroughJdkProxies() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterAopAutoConfiguration.class))
                .withPropertyValues("zae.limiter.store=memory", "zae.limiter.resources.chat.limits.rpm.capacity=1")
                .withBean(Clock.class, MutableClock::start)
                .withBean(Translator.class, DefaultTranslator::new)
                .run(context -> {
                    Translator translator = context.getBean(Translator.class);
                    assertThat(AopUtils.isJdkDynamicProxy(translator)).isTrue();
                    assertThat(translator.translate("erin", "hola")).isEqualTo("hello");
                    assertThatThrownBy(() -> translator.translate("erin", "hola"))
                            .isInstanceOf(RateLimitExceededException.class);
                    assertThat(translator.translate("frank", "hola")).isEqualTo("hello");
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnBeans() {
        runner.withUserConfiguration(CustomBeans.class).run(context -> {
            assertThat(context).hasSingleBean(RateLimitedOperationSource.class)
                    .hasSingleBean(RateLimitedInterceptor.class)
                    .hasSingleBean(RateLimitedAdvisor.class);
            assertThat(context.getBean(RateLimitedOperationSource.class)).isSameAs(CustomBeans.SOURCE);
            assertThat(context.getBean(RateLimitedAdvisor.class).getOrder()).isEqualTo(42);
            assertThat(context.getBean(RateLimitedInterceptor.class).getOperationSource())
                    .isSameAs(CustomBeans.SOURCE);
        });
    }

    @Test
    void orderIsConfigurable() {
        runner.withPropertyValues("zae.limiter.aop.order=7").run(context ->
                assertThat(context.getBean(RateLimitedAdvisor.class).getOrder()).isEqualTo(7));
    }

    @Test
    void absentWhenDisabledByProperty() {
        runner.withPropertyValues("zae.limiter.aop.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RateLimitedAdvisor.class)
                    .doesNotHaveBean(RateLimitedInterceptor.class)
                    .doesNotHaveBean(RateLimitedOperationSource.class)
                    .hasSingleBean(RateLimiter.class);
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isAopProxy(greeter)).isFalse();
            greeter.greet("carol");
            greeter.greet("carol");
        });
    }

    @Test
    void absentWithoutAspectJ() {
        runner.withClassLoader(new FilteredClassLoader("org.aspectj")).run(context -> {
            assertThat(context).hasNotFailed()
                    .doesNotHaveBean(RateLimitedAdvisor.class)
                    .doesNotHaveBean(RateLimitedInterceptor.class)
                    .hasSingleBean(RateLimiter.class);
            assertThat(AopUtils.isAopProxy(context.getBean(Greeter.class))).isFalse();
        });
    }

    @Test
    void absentWithoutARateLimiter() {
        runner.withPropertyValues("zae.limiter.enabled=false").run(context -> {
            assertThat(context).hasNotFailed()
                    .doesNotHaveBean(RateLimiter.class)
                    .doesNotHaveBean(RateLimitedAdvisor.class);
            assertThat(AopUtils.isAopProxy(context.getBean(Greeter.class))).isFalse();
        });
    }

    @Test
    void appliesWithAUserDefinedRateLimiter() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        ZaeLimiterAopAutoConfiguration.class))
                .withUserConfiguration(ServiceConfiguration.class, OwnLimiter.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
                    assertThat(AopUtils.isAopProxy(context.getBean(Greeter.class))).isTrue();
                });
    }

    @Test
    void createsNoBeanTooEarlyForThePostProcessors(CapturedOutput output) {
        runner.run(context -> {
            context.getBean(Greeter.class).greet("dave");
            assertThat(output).contains("zae-limiter uses the in-memory store")      // the log is captured
                    .doesNotContain("is not eligible for getting processed by all BeanPostProcessors");
        });
    }

    @Test
    void aMalformedAnnotationFailsStartupNamingTheMethod() {
        runner.withBean(BadExpression.class).run(context -> assertThat(
                invalidAnnotation(context.getStartupFailure()))
                .hasMessageContaining("BadExpression.call(String)")
                .hasMessageContaining("#userId +")
                .hasMessageContaining("does not parse"));
        runner.withBean(UnknownParameter.class).run(context -> assertThat(
                invalidAnnotation(context.getStartupFailure()))
                .hasMessageContaining("UnknownParameter.call(String)")
                .hasMessageContaining("'#user' names no parameter")
                .hasMessageContaining("userId"));
        runner.withBean(BadResource.class).run(context -> assertThat(
                invalidAnnotation(context.getStartupFailure()))
                .hasMessageContaining("BadResource.call(String)")
                .hasMessageContaining("a resource name"));
        runner.withBean(NegativeAmount.class).run(context -> assertThat(
                invalidAnnotation(context.getStartupFailure()))
                .hasMessageContaining("NegativeAmount.call(String)")
                .hasMessageContaining("zero or more"));
        runner.withBean(TwiceTheSameLimit.class).run(context -> assertThat(
                invalidAnnotation(context.getStartupFailure()))
                .hasMessageContaining("TwiceTheSameLimit.call(String)")
                .hasMessageContaining("'rpm' is consumed twice"));
    }

    /** The exception that {@code @RateLimited} raised for a malformed annotation, from a startup failure. */
    private static IllegalStateException invalidAnnotation(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IllegalStateException e && e.getMessage().startsWith("Invalid @RateLimited")) {
                return e;
            }
        }
        throw new AssertionError("no invalid @RateLimited annotation reported", failure);
    }

    static class Greeter {

        @RateLimited(resource = "chat", entity = "#name", consume = @Consume(limit = "rpm"))
        public String greet(String name) {
            return "hello " + name;
        }
    }

    interface Translator {

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
        String translate(String userId, String text);
    }

    static class DefaultTranslator implements Translator {

        @Override
        public String translate(String userId, String text) {
            return "hello";
        }
    }

    static class Plain {

        public String greet(String name) {
            return "hi " + name;
        }
    }

    static class BadExpression {

        @RateLimited(resource = "chat", entity = "#userId +", consume = @Consume(limit = "rpm"))
        public void call(String userId) {
        }
    }

    static class UnknownParameter {

        @RateLimited(resource = "chat", entity = "#user", consume = @Consume(limit = "rpm"))
        public void call(String userId) {
        }
    }

    static class BadResource {

        @RateLimited(resource = "chat room", entity = "#userId", consume = @Consume(limit = "rpm"))
        public void call(String userId) {
        }
    }

    static class NegativeAmount {

        @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm", amount = "-1"))
        public void call(String userId) {
        }
    }

    static class TwiceTheSameLimit {

        @RateLimited(resource = "chat", entity = "#userId", consume = {@Consume(limit = "rpm"),
                @Consume(limit = "rpm", amount = "2")})
        public void call(String userId) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        Clock clock() {
            return MutableClock.start();
        }

        @Bean
        Greeter greeter() {
            return new Greeter();
        }

        @Bean
        Plain plain() {
            return new Plain();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLimiter {

        @Bean
        RateLimiter myLimiter() {
            return RateLimiter.builder().build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomBeans {

        static final RateLimitedOperationSource SOURCE = new RateLimitedOperationSource();

        @Bean
        static RateLimitedOperationSource mySource() {
            return SOURCE;
        }

        @Bean
        static RateLimitedInterceptor myInterceptor(RateLimitedOperationSource source,
                org.springframework.beans.factory.ObjectProvider<RateLimiter> limiter) {
            return new RateLimitedInterceptor(limiter::getObject, source, null);
        }

        @Bean
        static RateLimitedAdvisor myAdvisor(RateLimitedInterceptor interceptor) {
            RateLimitedAdvisor advisor = new RateLimitedAdvisor(interceptor);
            advisor.setOrder(42);
            return advisor;
        }
    }
}
