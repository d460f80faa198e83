package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ImportJackson;
import dev.zaelimiter.autoconfigure.ImportedAutoConfigurations;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import jakarta.servlet.Filter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.support.StaticMessageSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The problems of the filter and of the MVC handler are Spring {@link ProblemDetail}s: {@code instance} as Spring
 * fills it, written with the application's JSON mapper, {@code detail} from the MessageSource, and entity ids and
 * balances only when {@code zae.limiter.web.problem.include-details} is on.
 */
class SpringProblemResponsesTests {

    @RestController
    static class Controller {
        private final RateLimiter limiter;

        Controller(RateLimiter limiter) {
            this.limiter = limiter;
        }

        @GetMapping("/api/items")
        String items() {
            return "ok";
        }

        @GetMapping("/reports")
        String report() {
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            return "ok";
        }

        @GetMapping("/unlimited")
        String unlimited() {
            limiter.acquire("user-1", "nothing-declared", Map.of("rpm", 1L)).close();
            return "ok";
        }

        @GetMapping("/unknown-limit")
        String unknownLimit() {
            limiter.acquire("user-1", "api", Map.of("tpm", 1L)).close();
            return "ok";
        }

        @GetMapping("/store-down")
        String storeDown() {
            throw new dev.zaelimiter.StoreUnavailableException("store down", new java.io.IOException("timeout"));
        }

        /** A problem of Spring's own, to compare with. */
        @GetMapping("/spring")
        ResponseEntity<ProblemDetail> spring() {
            return ResponseEntity.status(418).body(ProblemDetail.forStatus(HttpStatus.I_AM_A_TEAPOT));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    @Import(Controller.class)
    static class App {
        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GermanMessages {
        @Bean
        StaticMessageSource messageSource() {
            StaticMessageSource messages = new StaticMessageSource();
            messages.addMessage(RateLimitProblems.CODE_QUOTA_EXCEEDED_BALANCE, Locale.GERMAN,
                    "Limit ''{1}'' von ''{0}'' ist erschöpft; noch {4} Sekunden.");
            messages.addMessage(RateLimitProblems.CODE_QUOTA_EXCEEDED_BALANCE, Locale.ENGLISH,
                    "Slow down: {1} on {0} has {2} left, you asked for {3}.");
            return messages;
        }
    }

    final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterWebAutoConfiguration.class, ZaeLimiterMvcAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=1",
                    "zae.limiter.web.rules[0].paths[0]=/api/**", "zae.limiter.web.rules[0].resource=api",
                    "zae.limiter.web.rules[0].entity.source=header", "zae.limiter.web.rules[0].entity.header=X-Key",
                    "zae.limiter.web.rules[0].consume.rpm=1");

    interface WebTest {
        void run(MockMvc mvc) throws Exception;
    }

    static void run(WebApplicationContextRunner runner, WebTest test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            Filter filter = (Filter) context.getBean(FilterRegistrationBean.class).getFilter();
            test.run(MockMvcBuilders.webAppContextSetup(context).addFilters(filter).build());
        });
    }

    @Test
    void theFilterAndTheHandlerFillInstanceLikeSpringsOwnProblems() {
        run(runner, mvc -> {
            mvc.perform(get("/spring")).andExpect(jsonPath("$.instance").value("/spring"));
            mvc.perform(get("/api/items").header("X-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "60"))
                    .andExpect(header().string("RateLimit", "\"rpm\";r=0;t=60"))
                    .andExpect(content().contentType("application/problem+json"))
                    .andExpect(jsonPath("$.instance").value("/api/items"))
                    .andExpect(jsonPath("$.retryAfter").value(60))
                    .andExpect(jsonPath("$.violations[0].retryAfter").value(60))
                    .andExpect(jsonPath("$.retry_after").doesNotExist())
                    .andExpect(jsonPath("$.properties").doesNotExist());
            mvc.perform(get("/api/items")).andExpect(status().isBadRequest())
                    .andExpect(jsonPath("$.instance").value("/api/items"));
            mvc.perform(get("/reports")).andExpect(status().isOk());
            mvc.perform(get("/reports"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "60"))
                    .andExpect(content().contentType("application/problem+json"))
                    .andExpect(jsonPath("$.instance").value("/reports"))
                    .andExpect(jsonPath("$.retryAfter").value(60))
                    .andExpect(jsonPath("$.violations[0].entity").value("user-1"));
        });
    }

    @Test
    void theHandlerAnswersAStoreOutageAnd503AndAResourceWithoutLimitsA500AsProblems() {
        run(runner.withPropertyValues("zae.limiter.web.unavailable-retry-after=3s"), mvc -> {
            mvc.perform(get("/store-down"))
                    .andExpect(status().isServiceUnavailable())
                    .andExpect(header().string("Retry-After", "3"))
                    .andExpect(content().contentType("application/problem+json"))
                    .andExpect(jsonPath("$.instance").value("/store-down"))
                    .andExpect(jsonPath("$.retryAfter").value(3));
            mvc.perform(get("/unlimited"))
                    .andExpect(status().isInternalServerError())
                    .andExpect(content().contentType("application/problem+json"))
                    .andExpect(jsonPath("$.resource").value("nothing-declared"))
                    .andExpect(jsonPath("$.detail").value("Rate limiting is misconfigured for this request; the"
                            + " server log says why."));
            mvc.perform(get("/unknown-limit"))
                    .andExpect(status().isInternalServerError())
                    .andExpect(content().contentType("application/problem+json"))
                    .andExpect(jsonPath("$.resource").value("api"))
                    .andExpect(jsonPath("$.instance").value("/unknown-limit"));
        });
    }

    @Test
    void theFilterWritesWithTheApplicationsJsonMapper() {
        run(runner.withUserConfiguration(IndentingMapper.class), mvc -> {
            mvc.perform(get("/api/items").header("X-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(content().string(containsString("\n  \"type\"")))
                    .andExpect(jsonPath("$.violated-policies[0]").value("rpm"));
        });
        // Spring Boot's own ObjectMapper, with its naming of problem members
        run(runner.withConfiguration(ImportedAutoConfigurations.of(ImportJackson.class))
                .withPropertyValues("spring.jackson.serialization.indent-output=true"), mvc -> {
            mvc.perform(get("/api/items").header("X-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Key", "alice"))
                    .andExpect(content().string(containsString("\n  \"type\"")));
        });
    }

    @Test
    void detailComesFromTheMessageSourceInTheRequestsLocale() {
        run(runner.withUserConfiguration(GermanMessages.class), mvc -> {
            mvc.perform(get("/api/items").header("X-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Key", "alice").locale(Locale.GERMAN))
                    .andExpect(jsonPath("$.detail").value("Limit 'rpm' von 'api' ist erschöpft; noch 60 Sekunden."));
            mvc.perform(get("/api/items").header("X-Key", "alice").locale(Locale.ENGLISH))
                    .andExpect(jsonPath("$.detail").value("Slow down: rpm on api has 0 left, you asked for 1."));
            // a code the application does not define keeps the English default
            mvc.perform(get("/api/items").locale(Locale.GERMAN))
                    .andExpect(jsonPath("$.detail").value("Rate limiting on resource 'api' identifies callers by"
                            + " header 'X-Key', and this request has none."));
        });
    }

    @Test
    void includeDetailsFalseLeavesOutEntityIdsCapacitiesAndBalances() {
        run(runner.withPropertyValues("zae.limiter.web.problem.include-details=false"), mvc -> {
            mvc.perform(get("/api/items").header("X-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("RateLimit-Policy", "\"rpm\";q=1"))
                    .andExpect(header().string("RateLimit", "\"rpm\";r=0;t=60"))
                    .andExpect(jsonPath("$.detail").value("The request exceeds the rate limits rpm of resource"
                            + " 'api'; retry after 60 seconds."))
                    .andExpect(jsonPath("$.resource").value("api"))
                    .andExpect(jsonPath("$.retryAfter").value(60))
                    .andExpect(jsonPath("$.violated-policies[0]").value("rpm"))
                    .andExpect(jsonPath("$.violations").doesNotExist())
                    .andExpect(content().string(not(containsString("alice"))));
            mvc.perform(get("/reports")).andExpect(status().isOk());
            mvc.perform(get("/reports"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(jsonPath("$.violations").doesNotExist())
                    .andExpect(content().string(not(containsString("user-1"))));
        });
    }
}
