package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.docs.DocsYaml;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.SwitchableStore;
import jakarta.servlet.Filter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** Starts an application with the YAML of {@code docs/http-filter.md}, exactly as the page shows it. */
class HttpFilterDocsTest {

    @Test
    void theDocumentedRulesStartAndBehaveAsDescribed() throws Exception {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterWebAutoConfiguration.class))
                .withUserConfiguration(TestWebApp.Mvc.class)
                .withPropertyValues("RATE_LIMIT_HASH_KEY=a-long-random-secret-from-the-env")
                .withInitializer(DocsYaml.initializer("http-filter.md", "filter-example"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimitFilter filter = (RateLimitFilter) context.getBean(FilterRegistrationBean.class)
                            .getFilter();
                    assertThat(filter.rules()).hasSize(3);
                    assertThat(filter.rules().get(0).hashed()).isTrue();
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters((Filter) filter).build();
                    // the admitted example
                    mvc.perform(get("/api/items"))
                            .andExpect(status().isOk())
                            .andExpect(header().string("RateLimit-Policy", "\"rpm\";q=100"))
                            .andExpect(header().string("RateLimit", "\"rpm\";r=99"));
                    // the 400 example
                    mvc.perform(post("/api/uploads/x"))
                            .andExpect(status().isBadRequest())
                            .andExpect(jsonPath("$.detail").value("Rate limiting on resource 'uploads' identifies"
                                    + " callers by header 'X-Api-Key', and this request has none."))
                            .andExpect(jsonPath("$.instance").value("/api/uploads/x"));
                    // the 429 example
                    for (int i = 0; i < 99; i++) {
                        mvc.perform(get("/api/items")).andExpect(status().isOk());
                    }
                    mvc.perform(get("/api/items"))
                            .andExpect(status().isTooManyRequests())
                            .andExpect(header().string("Retry-After", "1"))
                            .andExpect(header().string("RateLimit", "\"rpm\";r=0;t=1"))
                            .andExpect(jsonPath("$.detail").value("Limit 'rpm' on resource 'api' has 0 tokens"
                                    + " available and the request needs 1; retry after 1 second."))
                            .andExpect(jsonPath("$.instance").value("/api/items"))
                            .andExpect(jsonPath("$.retryAfter").value(1))
                            .andExpect(jsonPath("$.violations[0].retryAfter").value(1));
                });
    }

    @Test
    void eachRuleFailsOpenOrClosedAsTheDocumentedPolicySays() {
        SwitchableStore store = new SwitchableStore();
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterWebAutoConfiguration.class))
                .withUserConfiguration(TestWebApp.Mvc.class)
                .withBean(LimiterStore.class, () -> store)
                .withInitializer(DocsYaml.initializer("http-filter.md", "filter-on-unavailable"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Filter filter = context.getBean(FilterRegistrationBean.class).getFilter();
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(filter).build();
                    store.down();
                    mvc.perform(get("/admin/x").header("X-Api-Key", "ada"))
                            .andExpect(status().isServiceUnavailable())
                            .andExpect(header().string("Retry-After", "1"));
                    mvc.perform(get("/api/items").header("X-Api-Key", "ada"))
                            .andExpect(status().isOk())
                            .andExpect(header().doesNotExist("RateLimit"));
                    store.up();
                    mvc.perform(get("/admin/x").header("X-Api-Key", "ada"))
                            .andExpect(status().isOk())
                            .andExpect(header().string("RateLimit", "\"rpm\";r=99"));
                });
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterWebAutoConfiguration.class))
                .withUserConfiguration(TestWebApp.Mvc.class)
                .withInitializer(DocsYaml.initializer("http-filter.md", "filter-on-unavailable"))
                .withPropertyValues("zae.limiter.web.rules[1].on-unavailable=sometimes")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("Failed to bind properties under"
                                + " 'zae.limiter.web.rules[1].on-unavailable'"));
    }
}
