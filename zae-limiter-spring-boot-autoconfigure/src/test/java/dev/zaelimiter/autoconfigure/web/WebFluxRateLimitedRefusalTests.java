package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.EnableWebFlux;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;

import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A refusal of a reactive {@code @RateLimited} method called by a WebFlux controller is answered by
 * {@link ReactiveRateLimitExceptionHandler} as the filter answers: 429, Retry-After, RateLimit headers, the problem body.
 */
class WebFluxRateLimitedRefusalTests {

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    static class Reports {
        @RateLimited(resource = "reports", entity = "#user", consume = @Consume(limit = "rpm"))
        public Mono<String> build(String user) {
            return Mono.just("report for " + user);
        }
    }

    @RestController
    static class ReportController {
        private final Reports reports;

        ReportController(Reports reports) {
            this.reports = reports;
        }

        @GetMapping("/reports")
        Mono<String> report(@RequestHeader("X-User") String user) {
            return reports.build(user);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class App {
        @Bean
        Clock clock() {
            return MutableClock.start();
        }

        @Bean
        Reports reports() {
            return new Reports();
        }

        @Bean
        ReportController reportController(Reports reports) {
            return new ReportController(reports);
        }
    }

    @Test
    void aRefusalOfAReactiveMethodIsA429ProblemWithHeaders() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        ZaeLimiterAutoConfiguration.class, ZaeLimiterReactiveAutoConfiguration.class,
                        ZaeLimiterAopAutoConfiguration.class, ZaeLimiterWebFluxExceptionAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues("zae.limiter.resources.reports.limits.rpm.capacity=1")
                .run(context -> {
                    assertThat(context).hasSingleBean(ReactiveRateLimitExceptionHandler.class);
                    WebFluxStackScenariosTests.serve(context, client -> {
                        WebStackScenarios.Http http = WebFluxStackScenariosTests.http(client);
                        assertThat(http.get("/reports", "X-User", "alice").body()).isEqualTo("report for alice");
                        WebStackScenarios.Answer refused = http.get("/reports", "X-User", "alice");
                        assertThat(refused.status()).isEqualTo(429);
                        assertThat(refused.header("Retry-After")).isEqualTo("60");
                        assertThat(refused.header("RateLimit-Policy")).isEqualTo("\"rpm\";q=1");
                        assertThat(refused.header("RateLimit")).isEqualTo("\"rpm\";r=0;t=60");
                        assertThat(refused.header("Content-Type")).isEqualTo("application/problem+json");
                        assertThat(refused.body()).contains("\"detail\":\"Limit 'rpm' on resource 'reports' has 0"
                                + " tokens available and the request needs 1; retry after 60 seconds.\"")
                                .contains("\"instance\":\"/reports\"");
                    });
                });
    }

    @Test
    void anInvalidEntityFromTheRequestIsA400Problem() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        ZaeLimiterAutoConfiguration.class, ZaeLimiterReactiveAutoConfiguration.class,
                        ZaeLimiterAopAutoConfiguration.class, ZaeLimiterWebFluxExceptionAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues("zae.limiter.resources.reports.limits.rpm.capacity=1")
                .run(context -> WebFluxStackScenariosTests.serve(context, client -> {
                    WebStackScenarios.Http http = WebFluxStackScenariosTests.http(client);
                    assertThat(http.get("/reports", "X-User", "alice").status()).isEqualTo(200);
                    WebStackScenarios.Answer refused = http.get("/reports", "X-User", "-bad");
                    assertThat(refused.status()).isEqualTo(400);
                    assertThat(refused.header("Content-Type")).isEqualTo("application/problem+json");
                    assertThat(refused.body()).contains("\"detail\":\"Rate limiting on resource 'reports' identifies"
                            + " callers by expression '#user', and this request's value is not a valid entity id")
                            .doesNotContain("-bad");
                }));
    }
}
