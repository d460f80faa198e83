package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterListener;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** RateLimiterBuilderCustomizer beans tune the auto-configured limiter's builder, in order, after the properties. */
class RateLimiterBuilderCustomizerTests {

    static final List<String> calls = new CopyOnWriteArrayList<>();
    static final List<Object> decisions = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
            .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=5");

    @Configuration(proxyBeanMethods = false)
    static class Customizers {

        @Bean
        @Order(2)
        RateLimiterBuilderCustomizer second() {
            return builder -> {
                calls.add("second");
                builder.maxQueue(7);
            };
        }

        @Bean
        @Order(1)
        RateLimiterBuilderCustomizer first() {
            return builder -> {
                calls.add("first");
                builder.listener(decisions::add);
            };
        }

        @Bean
        RateLimiterListener ignoredBecauseACustomizerSetsTheListenerLast() {
            return decision -> calls.add("listener bean");
        }
    }

    @Test
    void customizersRunInOrderAndHaveTheLastWord() {
        calls.clear();
        decisions.clear();
        runner.withUserConfiguration(Customizers.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(calls).containsExactly("first", "second");
            context.getBean(RateLimiter.class).acquire("user-1", "api", Map.of("rpm", 1L)).close();
            assertThat(decisions).hasSize(1);
            assertThat(calls).containsExactly("first", "second");
        });
    }

    @Test
    void aCustomizerIsNotAppliedToTheApplicationsOwnLimiter() {
        calls.clear();
        runner.withUserConfiguration(Customizers.class)
                .withBean(RateLimiter.class, () -> RateLimiter.builder().build())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(calls).isEmpty();
                });
    }
}
