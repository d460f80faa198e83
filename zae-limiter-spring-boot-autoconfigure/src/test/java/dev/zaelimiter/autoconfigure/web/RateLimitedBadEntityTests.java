package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * An {@code @RateLimited} entity expression that yields an invalid id from the request is the caller's fault: 400
 * problem+json as the filter answers, logged at most once per interval, never a 500 with a stack trace per request.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitedBadEntityTests {

    static class Reports {
        @RateLimited(resource = "reports", entity = "#id", consume = @Consume(limit = "rpm"))
        public String build(String id) {
            return "report " + id;
        }
    }

    @RestController
    static class ReportController {
        private final Reports reports;

        ReportController(Reports reports) {
            this.reports = reports;
        }

        @GetMapping("/reports/{id}")
        String report(@PathVariable String id) {
            return reports.build(id);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Mvc {
        @Bean
        MutableClock clock() {
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
    void anInvalidEntityFromThePathIsA400ProblemLoggedOnce(CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        ZaeLimiterAutoConfiguration.class, ZaeLimiterAopAutoConfiguration.class,
                        ZaeLimiterMvcAutoConfiguration.class))
                .withUserConfiguration(Mvc.class)
                .withPropertyValues("zae.limiter.resources.reports.limits.rpm.capacity=5")
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    mvc.perform(get("/reports/ok-1")).andExpect(status().isOk());
                    for (String bad : new String[] {"/reports/-bad", "/reports/a%20b", "/reports/-bad"}) {
                        mvc.perform(get(bad))
                                .andExpect(status().isBadRequest())
                                .andExpect(content().contentType("application/problem+json"))
                                .andExpect(jsonPath("$.resource").value("reports"))
                                .andExpect(jsonPath("$.detail").value("Rate limiting on resource 'reports' identifies"
                                        + " callers by expression '#id', and this request's value is not a valid"
                                        + " entity id (letters, digits and _ . - : @, starting with a letter or a"
                                        + " digit, at most 256 characters)."));
                    }
                });
        assertThat(output.getAll().split("entity expression '#id' on resource 'reports' gave an invalid id", -1))
                .as("logged once for three bad requests").hasSize(2);
        assertThat(output.getAll()).doesNotContain("RateLimitedEntityException:");
    }
}
