package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The filter in a small MVC application, driven through MockMvc: status, headers and problem bodies. The limit is
 * rpm with capacity 2 refilled at 2 per minute, so a token comes back every 30 seconds of the test clock.
 */
class RateLimitFilterTests {

    private static final String R = "zae.limiter.web.rules[0].";
    private static final String PROBLEM = "application/problem+json";
    private static final String HASH_KEY = "0123456789abcdef-test-key";

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterWebAutoConfiguration.class))
            .withUserConfiguration(TestWebApp.Mvc.class)
            .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=2",
                    "zae.limiter.resources.api.limits.tpm.capacity=1000",
                    "zae.limiter.resources.api.limits.tpm.soft=true",
                    R + "paths[0]=/api/**", R + "resource=api", R + "consume.rpm=1");

    private static final String[] BY_HEADER = {R + "entity.source=header", R + "entity.header=X-Api-Key"};

    interface WebTest {
        void run(MockMvc mvc, RateLimiter limiter, MutableClock clock) throws Exception;
    }

    private void run(WebApplicationContextRunner runner, WebTest test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            Filter filter = (Filter) context.getBean(FilterRegistrationBean.class).getFilter();
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(filter).build();
            test.run(mvc, context.getBean(RateLimiter.class), context.getBean(MutableClock.class));
        });
    }

    private void run(String[] properties, WebTest test) {
        run(runner.withPropertyValues(properties), test);
    }

    private static String body(MvcResult result) {
        return new String(result.getResponse().getContentAsByteArray(), StandardCharsets.UTF_8);
    }

    // ---- admitted and refused

    @Test
    void admitsWithIetfHeaders() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(status().isOk())
                    .andExpect(content().string("ok"))
                    .andExpect(header().string("RateLimit-Policy", "\"rpm\";q=2"))
                    .andExpect(header().string("RateLimit", "\"rpm\";r=1"))
                    .andExpect(header().doesNotExist("Retry-After"));
            assertThat(limiter.available("alice", "api")).containsEntry("rpm", 1L);
        });
    }

    @Test
    void refusesWith429RetryAfterHeadersAndProblemBody() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(status().isOk())
                    .andExpect(header().string("RateLimit", "\"rpm\";r=0"));
            clock.advance(Duration.ofSeconds(1));
            mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "29"))
                    .andExpect(header().string("RateLimit-Policy", "\"rpm\";q=2"))
                    .andExpect(header().string("RateLimit", "\"rpm\";r=0;t=29"))
                    .andExpect(content().contentType(PROBLEM))
                    .andExpect(jsonPath("$.type")
                            .value("https://iana.org/assignments/http-problem-types#quota-exceeded"))
                    .andExpect(jsonPath("$.title").value("Too Many Requests"))
                    .andExpect(jsonPath("$.status").value(429))
                    .andExpect(jsonPath("$.detail").value("Limit 'rpm' on resource 'api' has 0 tokens available"
                            + " and the request needs 1; retry after 29 seconds."))
                    .andExpect(jsonPath("$.resource").value("api"))
                    .andExpect(jsonPath("$.retryAfter").value(29))
                    .andExpect(jsonPath("$.violated-policies").value(org.hamcrest.Matchers.contains("rpm")))
                    .andExpect(jsonPath("$.violations", hasSize(1)))
                    .andExpect(jsonPath("$.violations[0].policy").value("rpm"))
                    .andExpect(jsonPath("$.violations[0].entity").value("alice"))
                    .andExpect(jsonPath("$.violations[0].resource").value("api"))
                    .andExpect(jsonPath("$.violations[0].limit").value("rpm"))
                    .andExpect(jsonPath("$.violations[0].capacity").value(2))
                    .andExpect(jsonPath("$.violations[0].available").value(0))
                    .andExpect(jsonPath("$.violations[0].requested").value(1))
                    .andExpect(jsonPath("$.violations[0].retryAfter").value(29));
            // another caller has its own bucket; the first one's comes back with the refill
            mvc.perform(get("/api/items").header("X-Api-Key", "bob")).andExpect(status().isOk());
            clock.advance(Duration.ofSeconds(29));
            mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(status().isOk())
                    .andExpect(header().string("RateLimit", "\"rpm\";r=0"));
        });
    }

    @Test
    void anUpstreamPauseIsA429UntilItEnds() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            limiter.pause("api", Duration.ofSeconds(20));
            mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "20"))
                    .andExpect(jsonPath("$.detail").value("Requests to resource 'api' are paused; retry after 20"
                            + " seconds."))
                    .andExpect(jsonPath("$.violations", hasSize(0)));
            clock.advance(Duration.ofSeconds(20));
            mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
        });
    }

    @Test
    void retryAfterRoundsUpToWholeSecondsAndIsAtLeastOne() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
            mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
            clock.advance(Duration.ofMillis(29_500)); // 500 ms to go
            mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(status().isTooManyRequests())
                    .andExpect(header().string("Retry-After", "1"))
                    .andExpect(header().string("RateLimit", "\"rpm\";r=0;t=1"));
        });
    }

    @Test
    void softLimitsStayOutOfTheHeaders() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(header().string("RateLimit-Policy", not(containsString("tpm"))));
        });
    }

    @Test
    void headersNoneLeavesThemOutButKeepsRetryAfter() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues("zae.limiter.web.headers=none"),
                (mvc, limiter, clock) -> {
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                            .andExpect(status().isOk())
                            .andExpect(header().doesNotExist("RateLimit-Policy"))
                            .andExpect(header().doesNotExist("RateLimit"));
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                            .andExpect(status().isTooManyRequests())
                            .andExpect(header().string("Retry-After", "30"))
                            .andExpect(header().doesNotExist("RateLimit-Policy"))
                            .andExpect(header().doesNotExist("RateLimit"))
                            .andExpect(jsonPath("$.violations[0].limit").value("rpm"));
                });
    }

    @Test
    void requestsNoRuleMatchesPassUntouched() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            for (int i = 0; i < 5; i++) {
                mvc.perform(get("/public/hello"))
                        .andExpect(status().isOk())
                        .andExpect(header().doesNotExist("RateLimit"));
            }
        });
    }

    // ---- the entity

    @Test
    void missingEntityIs400() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items"))
                    .andExpect(status().isBadRequest())
                    .andExpect(content().contentType(PROBLEM))
                    .andExpect(jsonPath("$.type").value("about:blank"))
                    .andExpect(jsonPath("$.title").value("Bad Request"))
                    .andExpect(jsonPath("$.status").value(400))
                    .andExpect(jsonPath("$.detail").value("Rate limiting on resource 'api' identifies callers by"
                            + " header 'X-Api-Key', and this request has none."))
                    .andExpect(header().doesNotExist("RateLimit"));
            mvc.perform(get("/api/items").header("X-Api-Key", "  ")).andExpect(status().isBadRequest());
        });
    }

    @Test
    void invalidEntityIdIs400WithoutEchoingIt() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            MvcResult result = mvc.perform(get("/api/items").header("X-Api-Key", "not/valid<script>"))
                    .andExpect(status().isBadRequest())
                    .andExpect(jsonPath("$.detail", containsString("not a valid entity id")))
                    .andReturn();
            assertThat(body(result)).doesNotContain("not/valid").doesNotContain("script");
        });
    }

    @Test
    void missingEntityUsesTheConfiguredDefault() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues(R + "entity.default=anonymous"),
                (mvc, limiter, clock) -> {
                    mvc.perform(get("/api/items")).andExpect(status().isOk())
                            .andExpect(header().string("RateLimit", "\"rpm\";r=1"));
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
                    assertThat(limiter.available("anonymous", "api")).containsEntry("rpm", 1L);
                    assertThat(limiter.available("alice", "api")).containsEntry("rpm", 1L);
                });
    }

    @Test
    void entityFromThePrincipal() {
        run(new String[] {R + "entity.source=principal"}, (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items").principal(() -> "carol")).andExpect(status().isOk());
            assertThat(limiter.available("carol", "api")).containsEntry("rpm", 1L);
            mvc.perform(get("/api/items"))
                    .andExpect(status().isBadRequest())
                    .andExpect(jsonPath("$.detail", containsString("the authenticated principal")));
        });
    }

    @Test
    void entityFromTheRemoteAddress() {
        run(new String[] {R + "entity.source=remote-address"}, (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items").with(request -> {
                request.setRemoteAddr("10.0.0.7");
                return request;
            })).andExpect(status().isOk());
            mvc.perform(get("/api/items").with(request -> {
                request.setRemoteAddr("::1");
                return request;
            })).andExpect(status().isOk());
            assertThat(limiter.available("10.0.0.7", "api")).containsEntry("rpm", 1L);
            assertThat(limiter.available("0::1", "api")).containsEntry("rpm", 1L);
        });
    }

    @Test
    void entityFromASpelExpressionOverTheRequest() {
        run(new String[] {R + "entity.source=expression", R + "entity.expression=getHeader('X-Org') + '.' + method"},
                (mvc, limiter, clock) -> {
                    mvc.perform(get("/api/items").header("X-Org", "acme")).andExpect(status().isOk());
                    assertThat(limiter.available("acme.GET", "api")).containsEntry("rpm", 1L);
                });
        run(new String[] {R + "entity.source=expression", R + "entity.expression=getHeader('X-Org')"},
                (mvc, limiter, clock) -> mvc.perform(get("/api/items")).andExpect(status().isBadRequest()));
    }

    @Test
    void spelExpressionsCannotReachTypesOrBeans() {
        run(new String[] {R + "entity.source=expression", R + "entity.expression=T(java.lang.System).getenv('X')"},
                (mvc, limiter, clock) -> mvc.perform(get("/api/items")).andExpect(status().isBadRequest()));
    }

    @Test
    void hashedEntityReachesTheStoreAsAnHmacAndTheRawKeyNeverAppears() throws Exception {
        String apiKey = "sk-live-Secret123";
        String hashed = "k_" + Base64.getUrlEncoder().withoutPadding().encodeToString(hmac(HASH_KEY, apiKey));
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues(R + "entity.hash.enabled=true",
                R + "entity.hash.key=" + HASH_KEY), (mvc, limiter, clock) -> {
                    mvc.perform(get("/api/items").header("X-Api-Key", apiKey)).andExpect(status().isOk());
                    assertThat(limiter.available(hashed, "api")).containsEntry("rpm", 1L);
                    assertThat(limiter.inspect(hashed, "api").limits()).anySatisfy(limit -> {
                        assertThat(limit.name()).isEqualTo("rpm");
                        assertThat(limit.available()).isEqualTo(1L);
                    });
                    assertThat(limiter.store().getEntity(apiKey)).isEmpty();
                    assertThat(limiter.available(apiKey, "api")).containsEntry("rpm", 2L); // never touched
                    mvc.perform(get("/api/items").header("X-Api-Key", apiKey)).andExpect(status().isOk());
                    MvcResult refused = mvc.perform(get("/api/items").header("X-Api-Key", apiKey))
                            .andExpect(status().isTooManyRequests())
                            .andExpect(jsonPath("$.violations[0].entity").value(hashed))
                            .andReturn();
                    assertThat(body(refused)).doesNotContain(apiKey).doesNotContain("Secret123")
                            .doesNotContain(HASH_KEY);
                    for (String name : refused.getResponse().getHeaderNames()) {
                        assertThat(refused.getResponse().getHeaders(name).toString()).doesNotContain("Secret123");
                    }
                });
    }

    private static byte[] hmac(String key, String value) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
    }

    // ---- rule matching

    @Test
    void methodsRestrictARule() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues(R + "methods=POST"), (mvc, limiter, clock) -> {
            mvc.perform(get("/api/items")).andExpect(status().isOk()).andExpect(header().doesNotExist("RateLimit"));
            mvc.perform(post("/api/items")).andExpect(status().isBadRequest());
            mvc.perform(post("/api/items").header("X-Api-Key", "alice"))
                    .andExpect(status().isOk())
                    .andExpect(content().string("created"))
                    .andExpect(header().string("RateLimit", "\"rpm\";r=1"));
        });
    }

    @Test
    void theFirstMatchingRuleWins() {
        String s = "zae.limiter.web.rules[1].";
        run(runner.withPropertyValues("zae.limiter.resources.special.limits.rpm.capacity=5",
                R + "paths[0]=/api/special/**", R + "resource=special", R + "entity.source=header",
                R + "entity.header=X-Api-Key",
                s + "paths[0]=/api/**", s + "resource=api", s + "entity.source=header", s + "entity.header=X-Api-Key",
                s + "consume.rpm=1"), (mvc, limiter, clock) -> {
                    mvc.perform(get("/api/special/x").header("X-Api-Key", "alice"))
                            .andExpect(status().isOk())
                            .andExpect(header().string("RateLimit-Policy", "\"rpm\";q=5"))
                            .andExpect(header().string("RateLimit", "\"rpm\";r=4"));
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                            .andExpect(header().string("RateLimit", "\"rpm\";r=1"));
                    assertThat(limiter.available("alice", "special")).containsEntry("rpm", 4L);
                    assertThat(limiter.available("alice", "api")).containsEntry("rpm", 1L);
                });
    }

    // ---- the lease

    @Test
    void rollsBackWhenTheControllerThrows() {
        run(BY_HEADER, (mvc, limiter, clock) -> {
            assertThatThrownBy(() -> mvc.perform(get("/api/boom").header("X-Api-Key", "alice")))
                    .isInstanceOf(ServletException.class)
                    .hasRootCauseInstanceOf(IllegalStateException.class);
            assertThat(limiter.available("alice", "api")).containsEntry("rpm", 2L);
            mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
            assertThat(limiter.available("alice", "api")).containsEntry("rpm", 1L);
        });
    }

    // ---- other refusals

    @Test
    void disabledResourceIs403() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues("zae.limiter.resources.api.disabled=disabled"),
                (mvc, limiter, clock) -> mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                        .andExpect(status().isForbidden())
                        .andExpect(content().contentType(PROBLEM))
                        .andExpect(jsonPath("$.title").value("Forbidden"))
                        .andExpect(jsonPath("$.status").value(403))
                        .andExpect(jsonPath("$.resource").value("api")));
    }

    @Test
    void bypassedEntityIsAdmittedWithoutHeaders() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues("zae.limiter.entities.vip.disabled=bypass"),
                (mvc, limiter, clock) -> {
                    for (int i = 0; i < 4; i++) {
                        mvc.perform(get("/api/items").header("X-Api-Key", "vip"))
                                .andExpect(status().isOk())
                                .andExpect(header().doesNotExist("RateLimit"));
                    }
                });
    }

    @Test
    void requestAboveCapacityIs422() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues(R + "consume.rpm=5"), (mvc, limiter, clock) ->
                mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                        .andExpect(status().isUnprocessableEntity())
                        .andExpect(content().contentType(PROBLEM))
                        .andExpect(jsonPath("$.title").value("Unprocessable Content"))
                        .andExpect(jsonPath("$.limit").value("rpm"))
                        .andExpect(jsonPath("$.capacity").value(2))
                        .andExpect(jsonPath("$.requested").value(5))
                        .andExpect(header().doesNotExist("Retry-After")));
    }

    @Test
    void ruleOnAResourceWithoutLimitsIs500Problem() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues(R + "resource=nolimits"),
                (mvc, limiter, clock) -> mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                        .andExpect(status().isInternalServerError())
                        .andExpect(content().contentType(PROBLEM))
                        .andExpect(jsonPath("$.detail", containsString("misconfigured"))));
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues(R + "consume.nosuch=1"),
                (mvc, limiter, clock) -> mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                        .andExpect(status().isInternalServerError())
                        .andExpect(content().contentType(PROBLEM)));
    }

    @Test
    void cascadeParentLimitsAppearAsParentPolicies() {
        run(runner.withPropertyValues(BY_HEADER).withPropertyValues(
                "zae.limiter.entities.org1.resources.api.limits.rpm.capacity=3",
                "zae.limiter.entities.alice.parent=org1",
                "zae.limiter.entities.alice.cascade=true"), (mvc, limiter, clock) -> {
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                            .andExpect(header().string("RateLimit-Policy", "\"rpm\";q=2, \"parent.rpm\";q=3"))
                            .andExpect(header().string("RateLimit", "\"rpm\";r=1, \"parent.rpm\";r=2"));
                });
    }

    @Test
    void storeFailureUnderBlockIs503WithRetryAfter() {
        run(runner.withUserConfiguration(TestWebApp.FailingStoreConfig.class).withPropertyValues(BY_HEADER)
                .withPropertyValues("zae.limiter.web.unavailable-retry-after=5s"), (mvc, limiter, clock) -> {
                    ((SwitchableStore) limiter.store()).down();
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                            .andExpect(status().isServiceUnavailable())
                            .andExpect(header().string("Retry-After", "5"))
                            .andExpect(content().contentType(PROBLEM))
                            .andExpect(jsonPath("$.title").value("Service Unavailable"))
                            .andExpect(jsonPath("$.status").value(503))
                            .andExpect(jsonPath("$.retryAfter").value(5));
                    ((SwitchableStore) limiter.store()).up();
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice")).andExpect(status().isOk());
                });
    }

    @Test
    void storeFailureUnderAllowAdmitsWithoutHeaders() {
        run(runner.withUserConfiguration(TestWebApp.FailingStoreConfig.class).withPropertyValues(BY_HEADER)
                .withPropertyValues("zae.limiter.on-unavailable=allow"), (mvc, limiter, clock) -> {
                    ((SwitchableStore) limiter.store()).down();
                    mvc.perform(get("/api/items").header("X-Api-Key", "alice"))
                            .andExpect(status().isOk())
                            .andExpect(header().doesNotExist("RateLimit"));
                });
    }

    @Test
    void storeFailureDuringRollbackKeepsTheOriginalError() {
        run(runner.withUserConfiguration(TestWebApp.FailingStoreConfig.class).withPropertyValues(BY_HEADER),
                (mvc, limiter, clock) -> {
                    ((SwitchableStore) limiter.store()).downForAdjustments();
                    assertThatThrownBy(() -> mvc.perform(get("/api/boom").header("X-Api-Key", "alice")))
                            .isInstanceOf(ServletException.class)
                            .hasRootCauseInstanceOf(IllegalStateException.class)
                            .satisfies(e -> assertThat(e.getSuppressed()).isNotEmpty());
                    assertThat(limiter.available("alice", "api")).containsEntry("rpm", 1L); // not given back
                });
    }
}
