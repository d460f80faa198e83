package dev.zaelimiter.autoconfigure.web;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * On Spring Boot 4 the filter writes its problems with the application's Jackson 3 mapper, and with its Jackson 2
 * mapper (Spring Boot's Jackson 2 module) where the application prefers Jackson 2 for its HTTP messages.
 */
class Jackson2ProblemBodiesTests {

    /** Both of Spring Boot's mappers, only the Jackson 2 one indenting. */
    private final WebApplicationContextRunner runner = new SpringProblemResponsesTests().runner
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, Jackson2AutoConfiguration.class))
            .withPropertyValues("spring.jackson2.serialization.indent-output=true");

    @Test
    void jackson3UnlessTheApplicationPrefersJackson2() {
        SpringProblemResponsesTests.run(runner, mvc -> {
            mvc.perform(get("/api/items").header("X-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(content().string(not(containsString("\n  \"type\""))))
                    .andExpect(jsonPath("$.violated-policies[0]").value("rpm"));
        });
    }

    @Test
    void theApplicationsJackson2MapperWhereItPrefersJackson2() {
        WebApplicationContextRunner jackson2 = runner
                .withPropertyValues("spring.http.converters.preferred-json-mapper=jackson2");
        SpringProblemResponsesTests.run(jackson2, mvc -> {
            mvc.perform(get("/api/items").header("X-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(content().string(containsString("\n  \"type\"")))
                    .andExpect(jsonPath("$.violated-policies[0]").value("rpm"));
        });
    }
}
