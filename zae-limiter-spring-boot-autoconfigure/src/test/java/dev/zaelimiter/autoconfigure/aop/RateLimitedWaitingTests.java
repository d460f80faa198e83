package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @RateLimited(maxWait = ...)} waits for capacity before the method runs, within its bound. */
class RateLimitedWaitingTests {

    static class Report {
        @RateLimited(resource = "reports", entity = "#user", consume = @Consume(limit = "rpm"), maxWait = "15s",
                priority = 3)
        String patient(String user) {
            return "report for " + user;
        }

        @RateLimited(resource = "reports", entity = "#user", consume = @Consume(limit = "rpm"))
        String hasty(String user) {
            return "report for " + user;
        }
    }

    static class BadWait {
        @RateLimited(resource = "reports", entity = "#user", consume = @Consume(limit = "rpm"), maxWait = "soon")
        String call(String user) {
            return user;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Setup {
        final MutableClock clock = MutableClock.start();
        final List<Duration> slept = new ArrayList<>();

        @Bean
        RateLimiter rateLimiter() {
            RateLimiter limiter = RateLimiter.builder().store(new InMemoryStore()).clock(clock).sleeper(d -> {
                slept.add(d);
                clock.advance(d);
            }).build();
            limiter.admin().setResourceDefaults("reports", List.of(Limit.perMinute("rpm", 6)));
            return limiter;
        }

        @Bean
        Report report() {
            return new Report();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterAopAutoConfiguration.class));

    @Test
    void waitsForCapacityWithinMaxWaitAndFailsAtOnceWithout() {
        runner.withUserConfiguration(Setup.class).run(context -> {
            Report report = context.getBean(Report.class);
            Setup setup = context.getBean(Setup.class);
            for (int i = 0; i < 6; i++) {
                report.hasty("ann");
            }
            assertThatThrownBy(() -> report.hasty("ann")).isInstanceOf(RateLimitExceededException.class);
            assertThat(setup.slept).isEmpty();

            assertThat(report.patient("ann")).isEqualTo("report for ann");
            assertThat(setup.slept).singleElement()
                    .satisfies(d -> assertThat(d).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11)));
        });
    }

    @Test
    void anUnparsableMaxWaitFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(Setup.class).withBean(BadWait.class).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            while (failure != null && !String.valueOf(failure.getMessage()).contains("maxWait 'soon'")) {
                failure = failure.getCause();
            }
            assertThat(failure).as("a cause names the bad maxWait").isNotNull()
                    .hasMessageContaining("BadWait.call");
        });
    }
}
