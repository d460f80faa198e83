package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import jakarta.servlet.Filter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** A rule with {@code max-wait} lets a request wait for capacity when the wait fits, and refuses it at once if not. */
class RateLimitFilterWaitingTests {

    private static final String R = "zae.limiter.web.rules[0].";

    @Test
    void aRequestWaitsWhenTheWaitFitsAndIsRefusedAtOnceWhenItDoesNot() {
        List<Duration> slept = new ArrayList<>();
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterWebAutoConfiguration.class))
                .withUserConfiguration(TestWebApp.Mvc.class)
                .withBean("rateLimiter", RateLimiter.class, () -> {
                    MutableClock clock = new MutableClock(java.time.Instant.parse("2026-03-01T00:00:00Z"));
                    return RateLimiter.builder().store(new InMemoryStore()).clock(clock).sleeper(d -> {
                        slept.add(d);
                        clock.advance(d);
                    }).build();
                })
                .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=6",
                        R + "paths[0]=/api/**", R + "resource=api", R + "consume.rpm=1",
                        R + "entity.source=header", R + "entity.header=X-Api-Key", R + "max-wait=15s",
                        "zae.limiter.web.rules[1].paths[0]=/public/**", "zae.limiter.web.rules[1].resource=api",
                        "zae.limiter.web.rules[1].consume.rpm=1", "zae.limiter.web.rules[1].entity.source=header",
                        "zae.limiter.web.rules[1].entity.header=X-Api-Key", "zae.limiter.web.rules[1].max-wait=5s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Filter filter = (Filter) context.getBean(FilterRegistrationBean.class).getFilter();
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(filter).build();
                    for (int i = 0; i < 6; i++) {
                        mvc.perform(get("/api/items").header("X-Api-Key", "k1")).andExpect(status().isOk());
                    }
                    mvc.perform(get("/public/hello").header("X-Api-Key", "k1"))
                            .andExpect(status().isTooManyRequests());
                    assertThat(slept).as("10 s does not fit in 5 s: refused at once").isEmpty();
                    mvc.perform(get("/api/items").header("X-Api-Key", "k1")).andExpect(status().isOk());
                    // the default priority books at most half its max-wait ahead: it may look once before it books
                    assertThat(slept.stream().reduce(Duration.ZERO, Duration::plus))
                            .isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11));
                });
    }
}
