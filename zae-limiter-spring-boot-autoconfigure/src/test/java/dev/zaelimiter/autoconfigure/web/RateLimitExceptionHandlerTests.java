package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** Refusals thrown inside Spring MVC answer like the filter's. */
class RateLimitExceptionHandlerTests {

    @RestController
    static class ReportController {
        private final RateLimiter limiter;

        ReportController(RateLimiter limiter) {
            this.limiter = limiter;
        }

        @GetMapping("/reports")
        String report() {
            limiter.acquire("user-1", "reports", Map.of("rpm", 1L)).close();
            return "ok";
        }

        @GetMapping("/huge")
        String huge() {
            limiter.acquire("user-1", "reports", Map.of("rpm", 50L)).close();
            return "ok";
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    @Import(ReportController.class)
    static class Mvc {
        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }
    }

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterMvcAutoConfiguration.class))
            .withUserConfiguration(Mvc.class)
            .withPropertyValues("zae.limiter.resources.reports.limits.rpm.capacity=2");

    @Test
    void aRefusalInAControllerIsA429ProblemWithHeaders() {
        runner.run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/reports")).andExpect(status().isOk());
            mvc.perform(get("/reports")).andExpect(status().isOk());
            mvc.perform(get("/reports"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "30"))
                    .andExpect(header().string("RateLimit-Policy", "\"rpm\";q=2"))
                    .andExpect(header().string("RateLimit", "\"rpm\";r=0;t=30"))
                    .andExpect(content().contentType("application/problem+json"))
                    .andExpect(jsonPath("$.status").value(429))
                    .andExpect(jsonPath("$.resource").value("reports"))
                    .andExpect(jsonPath("$.violations[0].limit").value("rpm"));
            mvc.perform(get("/huge")).andExpect(status().isUnprocessableEntity())
                    .andExpect(jsonPath("$.capacity").value(2));
        });
    }

    @Test
    void canBeSwitchedOffOrReplaced() {
        runner.withPropertyValues("zae.limiter.web.exception-handler=false")
                .run(context -> assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class));
        RateLimitExceptionHandler own = new RateLimitExceptionHandler(false);
        runner.withBean(RateLimitExceptionHandler.class, () -> own)
                .run(context -> assertThat(context.getBean(RateLimitExceptionHandler.class)).isSameAs(own));
        runner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
                .run(context -> assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class));
    }

    @Test
    void refusesANegativeUnavailableRetryAfterAsTheFilterDoes() {
        runner.withPropertyValues("zae.limiter.web.unavailable-retry-after=-1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(dev.zaelimiter.autoconfigure.InvalidDeclarationException.class)
                    .hasMessageStartingWith("zae.limiter.web.unavailable-retry-after: a duration of zero or more");
        });
    }

    @Test
    void sendsOnlyRetryAfterWithHeadersNoneAsTheFilterDoes() {
        runner.withPropertyValues("zae.limiter.web.headers=none").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/reports"));
            mvc.perform(get("/reports"));
            mvc.perform(get("/reports")).andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "30"))
                    .andExpect(header().doesNotExist("RateLimit-Policy"));
        });
    }
}
