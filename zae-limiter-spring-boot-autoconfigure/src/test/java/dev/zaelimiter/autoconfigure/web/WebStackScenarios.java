package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter's behaviour as a client sees it, run against both web stacks by the subclasses (servlet through MockMvc,
 * WebFlux over a real Netty server): each scenario asserts the same status, headers and body in both. The limit is
 * rpm with capacity 2 refilled at 2 per minute, so a token comes back every 30 seconds of the test clock.
 */
abstract class WebStackScenarios {

    static final String R = "zae.limiter.web.rules[0].";
    static final String[] COMMON = {"zae.limiter.resources.api.limits.rpm.capacity=2",
            "zae.limiter.resources.api.limits.tpm.capacity=1000", "zae.limiter.resources.api.limits.tpm.soft=true",
            R + "paths[0]=/api/**", R + "resource=api", R + "consume.rpm=1"};
    static final String[] BY_HEADER = {R + "entity.source=header", R + "entity.header=X-Api-Key"};

    /** A response: its status, its headers (first values, by lower-case name) and its body. */
    record Answer(int status, Map<String, String> headers, String body) {

        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    /** Sends a request to the application under test. */
    interface Http {
        Answer send(String method, String path, String... headerNamesAndValues) throws Exception;

        default Answer get(String path, String... headerNamesAndValues) throws Exception {
            return send("GET", path, headerNamesAndValues);
        }
    }

    interface Scenario {
        void run(Http http, RateLimiter limiter, MutableClock clock) throws Exception;
    }

    /** Runs {@code scenario} in an application of this stack with {@link #COMMON} and {@code properties}. */
    abstract void run(List<Class<?>> userConfigurations, String[] properties, Scenario scenario);

    void run(String[] properties, Scenario scenario) {
        run(List.of(), properties, scenario);
    }

    static String[] with(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    @Test
    void admitsWithIetfHeaders() {
        run(BY_HEADER, (http, limiter, clock) -> {
            Answer answer = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("ok");
            assertThat(answer.header("RateLimit-Policy")).isEqualTo("\"rpm\";q=2");
            assertThat(answer.header("RateLimit")).isEqualTo("\"rpm\";r=1");
            assertThat(answer.header("Retry-After")).isNull();
            assertThat(limiter.available("alice", "api")).containsEntry("rpm", 1L);
        });
    }

    @Test
    void refusesWith429RetryAfterHeadersAndTheSameProblemBody() {
        run(BY_HEADER, (http, limiter, clock) -> {
            assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(200);
            assertThat(http.get("/api/items", "X-Api-Key", "alice").header("RateLimit")).isEqualTo("\"rpm\";r=0");
            clock.advance(Duration.ofSeconds(1));
            Answer refused = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.header("Retry-After")).isEqualTo("29");
            assertThat(refused.header("RateLimit-Policy")).isEqualTo("\"rpm\";q=2");
            assertThat(refused.header("RateLimit")).isEqualTo("\"rpm\";r=0;t=29");
            assertThat(refused.header("Content-Type")).isEqualTo("application/problem+json");
            JSONAssert.assertEquals("""
                    {"type": "https://iana.org/assignments/http-problem-types#quota-exceeded",
                     "title": "Too Many Requests", "status": 429,
                     "detail": "Limit 'rpm' on resource 'api' has 0 tokens available and the request needs 1; retry after 29 seconds.",
                     "instance": "/api/items", "resource": "api", "retryAfter": 29, "violated-policies": ["rpm"],
                     "violations": [{"policy": "rpm", "entity": "alice", "resource": "api", "limit": "rpm",
                                     "capacity": 2, "available": 0, "requested": 1, "retryAfter": 29}]}
                    """, refused.body(), JSONCompareMode.STRICT);
            assertThat(http.get("/api/items", "X-Api-Key", "bob").status()).isEqualTo(200);
            clock.advance(Duration.ofSeconds(29));
            assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(200);
        });
    }

    @Test
    void anUpstreamPauseIsA429WithoutPolicyHeaders() {
        run(BY_HEADER, (http, limiter, clock) -> {
            limiter.pause("api", Duration.ofSeconds(20));
            Answer paused = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(paused.status()).isEqualTo(429);
            assertThat(paused.header("Retry-After")).isEqualTo("20");
            assertThat(paused.header("RateLimit")).isNull();
            assertThat(paused.body()).contains("\"detail\":\"Requests to resource 'api' are paused; retry after 20"
                    + " seconds.\"");
        });
    }

    @Test
    void headersNoneKeepsRetryAfterOnly() {
        run(with(BY_HEADER, "zae.limiter.web.headers=none"), (http, limiter, clock) -> {
            Answer ok = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(ok.header("RateLimit")).isNull();
            http.get("/api/items", "X-Api-Key", "alice");
            Answer refused = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.header("Retry-After")).isEqualTo("30");
            assertThat(refused.header("RateLimit-Policy")).isNull();
            assertThat(refused.header("RateLimit")).isNull();
        });
    }

    @Test
    void requestsNoRuleMatchesPassUntouched() {
        run(BY_HEADER, (http, limiter, clock) -> {
            Answer answer = http.get("/public/hello");
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.header("RateLimit")).isNull();
        });
    }

    @Test
    void missingEntityIs400Problem() {
        run(BY_HEADER, (http, limiter, clock) -> {
            Answer answer = http.get("/api/items");
            assertThat(answer.status()).isEqualTo(400);
            JSONAssert.assertEquals("""
                    {"type": "about:blank", "title": "Bad Request", "status": 400,
                     "detail": "Rate limiting on resource 'api' identifies callers by header 'X-Api-Key', and this request has none.",
                     "instance": "/api/items", "resource": "api"}
                    """, answer.body(), JSONCompareMode.STRICT);
        });
    }

    @Test
    void invalidEntityIdIs400WithoutEchoingIt() {
        run(BY_HEADER, (http, limiter, clock) -> {
            Answer answer = http.get("/api/items", "X-Api-Key", "%bad value");
            assertThat(answer.status()).isEqualTo(400);
            assertThat(answer.body()).doesNotContain("%bad");
        });
    }

    @Test
    void entityFromASpelExpressionWithTheSameNamesInBothStacks() {
        run(new String[] {R + "entity.source=expression",
                R + "entity.expression=getHeader('X-Org') + '.' + method + '.' + (userPrincipal?.name ?: 'anon')"},
                (http, limiter, clock) -> {
                    assertThat(http.get("/api/items", "X-Org", "acme").status()).isEqualTo(200);
                    assertThat(limiter.available("acme.GET.anon", "api")).containsEntry("rpm", 1L);
                });
    }

    @Test
    void entityFromTheRemoteAddress() {
        run(new String[] {R + "entity.source=remote-address"}, (http, limiter, clock) -> {
            assertThat(http.get("/api/items").status()).isEqualTo(200);
            assertThat(limiter.available("127.0.0.1", "api")).containsEntry("rpm", 1L);
        });
    }

    @Test
    void methodsAndTheFirstMatchingRuleDecide() {
        run(with(BY_HEADER, R + "methods=POST"), (http, limiter, clock) -> {
            assertThat(http.get("/api/items", "X-Api-Key", "alice").header("RateLimit")).isNull();
            assertThat(http.send("POST", "/api/items", "X-Api-Key", "alice").header("RateLimit"))
                    .isEqualTo("\"rpm\";r=1");
        });
    }

    @Test
    void rollsBackWhenTheHandlerFails() {
        run(BY_HEADER, (http, limiter, clock) -> {
            assertThat(http.get("/api/boom", "X-Api-Key", "alice").status()).isEqualTo(500);
            assertThat(limiter.available("alice", "api")).containsEntry("rpm", 2L);
        });
    }

    @Test
    void disabledResourceIs403() {
        run(with(BY_HEADER, "zae.limiter.resources.api.disabled=disabled"), (http, limiter, clock) -> {
            Answer answer = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(answer.status()).isEqualTo(403);
            assertThat(answer.body()).contains("\"detail\":\"Resource 'api' is disabled for this caller.\"");
        });
    }

    @Test
    void bypassedEntityIsAdmittedWithoutHeaders() {
        run(with(BY_HEADER, "zae.limiter.entities.vip.disabled=bypass"), (http, limiter, clock) -> {
            Answer answer = http.get("/api/items", "X-Api-Key", "vip");
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.header("RateLimit")).isNull();
        });
    }

    @Test
    void requestAboveCapacityIs422() {
        run(with(BY_HEADER, R + "consume.rpm=5"), (http, limiter, clock) -> {
            Answer answer = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(answer.status()).isEqualTo(422);
            assertThat(answer.header("Retry-After")).isNull();
            JSONAssert.assertEquals("""
                    {"type": "about:blank", "title": "Unprocessable Content", "status": 422,
                     "detail": "The request needs 5 tokens of limit 'rpm' on resource 'api', more than its capacity of 2, so no wait could admit it.",
                     "instance": "/api/items", "resource": "api", "limit": "rpm", "entity": "alice", "capacity": 2,
                     "requested": 5}
                    """, answer.body(), JSONCompareMode.STRICT);
        });
    }

    @Test
    void ruleOnAResourceWithoutLimitsIs500Problem() {
        run(with(BY_HEADER, R + "resource=nolimits"), (http, limiter, clock) -> {
            Answer answer = http.get("/api/items", "X-Api-Key", "alice");
            assertThat(answer.status()).isEqualTo(500);
            assertThat(answer.header("Content-Type")).isEqualTo("application/problem+json");
        });
    }

    @Test
    void cascadeParentLimitsAppearAsParentPolicies() {
        run(with(BY_HEADER, "zae.limiter.entities.org1.resources.api.limits.rpm.capacity=3",
                "zae.limiter.entities.alice.parent=org1", "zae.limiter.entities.alice.cascade=true"),
                (http, limiter, clock) -> {
                    Answer answer = http.get("/api/items", "X-Api-Key", "alice");
                    assertThat(answer.header("RateLimit-Policy")).isEqualTo("\"rpm\";q=2, \"parent.rpm\";q=3");
                    assertThat(answer.header("RateLimit")).isEqualTo("\"rpm\";r=1, \"parent.rpm\";r=2");
                });
    }

    @Test
    void storeFailureUnderBlockIs503WithRetryAfter() {
        run(List.of(TestWebApp.FailingStoreConfig.class), with(BY_HEADER, "zae.limiter.web.unavailable-retry-after=5s"),
                (http, limiter, clock) -> {
                    ((SwitchableStore) limiter.store()).down();
                    Answer answer = http.get("/api/items", "X-Api-Key", "alice");
                    assertThat(answer.status()).isEqualTo(503);
                    assertThat(answer.header("Retry-After")).isEqualTo("5");
                    JSONAssert.assertEquals("""
                            {"type": "about:blank", "title": "Service Unavailable", "status": 503,
                             "detail": "The rate limiter cannot reach its store; retry later.",
                             "instance": "/api/items", "resource": "api", "retryAfter": 5}
                            """, answer.body(), JSONCompareMode.STRICT);
                    ((SwitchableStore) limiter.store()).up();
                    assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(200);
                });
    }

    @Test
    void storeFailureUnderAllowAdmitsWithoutHeaders() {
        run(List.of(TestWebApp.FailingStoreConfig.class), with(BY_HEADER, "zae.limiter.on-unavailable=allow"),
                (http, limiter, clock) -> {
                    ((SwitchableStore) limiter.store()).down();
                    Answer answer = http.get("/api/items", "X-Api-Key", "alice");
                    assertThat(answer.status()).isEqualTo(200);
                    assertThat(answer.header("RateLimit")).isNull();
                });
    }

    @Test
    void eachRuleAppliesItsOwnPolicyWhenTheStoreIsOut() {
        String login = "zae.limiter.web.rules[0].";
        String read = "zae.limiter.web.rules[1].";
        String[] rules = {"zae.limiter.resources.api.limits.rpm.capacity=2",
                login + "paths[0]=/admin/**", login + "resource=api", login + "consume.rpm=1",
                login + "entity.source=header", login + "entity.header=X-Api-Key", login + "on-unavailable=block",
                read + "paths[0]=/api/**", read + "resource=api", read + "consume.rpm=1",
                read + "entity.source=header", read + "entity.header=X-Api-Key", read + "on-unavailable=allow"};
        for (String limiterPolicy : List.of("block", "allow")) {
            run(List.of(TestWebApp.FailingStoreConfig.class),
                    with(rules, "zae.limiter.on-unavailable=" + limiterPolicy), (http, limiter, clock) -> {
                        ((SwitchableStore) limiter.store()).down();
                        assertThat(http.get("/admin/x", "X-Api-Key", "alice").status()).isEqualTo(503);
                        Answer read1 = http.get("/api/items", "X-Api-Key", "alice");
                        assertThat(read1.status()).isEqualTo(200);
                        assertThat(read1.header("RateLimit")).isNull();
                        ((SwitchableStore) limiter.store()).up();
                        assertThat(http.get("/admin/x", "X-Api-Key", "alice").status()).isEqualTo(200);
                        assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(200);
                        assertThat(http.get("/admin/x", "X-Api-Key", "alice").status()).isEqualTo(429);
                    });
        }
    }
}
