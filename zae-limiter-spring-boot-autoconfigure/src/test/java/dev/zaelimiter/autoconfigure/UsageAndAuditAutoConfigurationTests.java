package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint;
import dev.zaelimiter.autoconfigure.actuate.ZaeLimiterActuatorAutoConfiguration;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Usage history and the audit log in the starter: properties, actors, flush on shutdown, actuator reports. */
class UsageAndAuditAutoConfigurationTests {

    private static final Instant START = Instant.parse("2026-03-01T00:00:00Z");
    private static final Instant NEXT_DAY = Instant.parse("2026-03-02T00:00:00Z");
    private final MutableClock clock = MutableClock.start();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterActuatorAutoConfiguration.class))
            .withBean(Clock.class, () -> clock)
            .withPropertyValues("spring.application.name=gateway",
                    "management.endpoints.web.exposure.include=ratelimits",
                    "zae.limiter.resources.gpt-4.limits.tpm.capacity=1000");

    @AfterEach
    void signOut() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void declarationsAreAuditedAsDeclarationsAndOtherChangesAsTheApplicationOrTheSignedInUser() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            limiter.admin().setResourceDefaults("batch", List.of(Limit.perMinute("rpm", 5)));
            SecurityContextHolder.getContext().setAuthentication(new TestingAuthenticationToken("alice", null,
                    "ROLE_ADMIN"));
            limiter.admin().setResourceDefaults("batch", List.of(Limit.perMinute("rpm", 6)));

            assertThat(limiter.admin().audit(AuditQuery.all()).events())
                    .extracting(AuditEvent::actor, AuditEvent::action, AuditEvent::resource)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("alice", "set-limits", "batch"),
                            org.assertj.core.groups.Tuple.tuple("gateway", "set-limits", "batch"),
                            org.assertj.core.groups.Tuple.tuple("declarations:gateway", "set-limits", "gpt-4"));
        });
    }

    @Test
    void theActorNamesAreProperties() {
        runner.withPropertyValues("zae.limiter.audit.actor=ops-console",
                        "zae.limiter.audit.declarations-actor=gitops")
                .withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context -> {
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    limiter.admin().deleteResourceDefaults("gpt-4");
                    assertThat(limiter.admin().audit(AuditQuery.resource("gpt-4")).events())
                            .extracting(AuditEvent::actor).containsExactly("ops-console", "gitops");
                });
    }

    @Test
    void whatTheProcessCountedIsWrittenWhenTheContextCloses() {
        LimiterStore[] store = new LimiterStore[1];
        runner.withPropertyValues("zae.limiter.usage.flush-interval=0s").run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            store[0] = context.getBean(LimiterStore.class);
            limiter.acquire("user-1", "gpt-4", Map.of("tpm", 300L)).close();
            limiter.acquire("user-1", "gpt-4", Map.of("tpm", 200L)).close();
            assertThat(store[0].usage().entityUsage("user-1", null, UsageGranularity.HOUR, 0, Long.MAX_VALUE))
                    .as("nothing written before shutdown with a zero interval").isEmpty();
        });
        RateLimiter reader = RateLimiter.builder().store(store[0]).clock(clock).build();
        assertThat(reader.admin().usage("user-1", UsageGranularity.DAY, START, NEXT_DAY))
                .singleElement().extracting(Usage::consumed, Usage::admitted).containsExactly(500L, 2L);
    }

    @Test
    void usageHistoryCanBeSwitchedOffAndABadIntervalFailsStartupNamingTheProperty() {
        runner.withPropertyValues("zae.limiter.usage.enabled=false").run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            limiter.acquire("user-1", "gpt-4", Map.of("tpm", 1L));
            limiter.flushUsage();
            assertThat(limiter.admin().usage("user-1", UsageGranularity.DAY, START, NEXT_DAY)).isEmpty();
        });
        runner.withPropertyValues("zae.limiter.usage.flush-interval=5ms").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("zae.limiter.usage.flush-interval"));
    }

    @Test
    void theEndpointReportsUsageTopUsageAndTheAuditLog() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            limiter.acquire("user-1", "gpt-4", Map.of("tpm", 300L));
            limiter.acquire("user-2", "gpt-4", Map.of("tpm", 100L));

            Map<String, Object> usage = endpoint.report("usage", "user-1", null, null, "day",
                    START.toString(), NEXT_DAY.toString(), null, null, null, null).getBody();
            assertThat(usage).containsEntry("granularity", "day");
            assertThat((List<?>) usage.get("usage")).singleElement().satisfies(row -> assertThat(asMap(row))
                    .containsEntry("limit", "tpm").containsEntry("consumed", 300L).containsEntry("admitted", 1L));

            Map<String, Object> top = endpoint.report("top-usage", null, "gpt-4", "tpm", null, null, null, 1, null,
                    null, null).getBody();
            assertThat((List<?>) top.get("top")).singleElement().satisfies(row -> assertThat(asMap(row))
                    .containsEntry("entity_id", "user-1"));

            Map<String, Object> audit = endpoint.report("audit", null, "gpt-4", null, null, null, null, null, null,
                    1, null).getBody();
            assertThat((List<?>) audit.get("events")).singleElement().satisfies(row -> assertThat(asMap(row))
                    .containsEntry("actor", "declarations:gateway").containsEntry("scope", "resource"));
            assertThat(audit).doesNotContainKey("next_cursor");

            assertThat(endpoint.report("usage", null, null, null, null, null, null, null, null, null, null))
                    .satisfies(answer -> assertBadRequest(answer, "entity"));
            assertThat(endpoint.report("usage", "user-1", null, null, "week", null, null, null, null, null, null))
                    .satisfies(answer -> assertBadRequest(answer, "granularity"));
            assertThat(endpoint.report("usage", "user-1", null, null, null, "yesterday", null, null, null, null,
                    null)).satisfies(answer -> assertBadRequest(answer, "yesterday"));
            assertThat(endpoint.report("audit", null, null, null, null, null, null, null, null, 0, null))
                    .satisfies(answer -> assertBadRequest(answer, "pageSize"));
            assertThat(endpoint.report("nope", null, null, null, null, null, null, null, null, null, null))
                    .satisfies(answer -> assertBadRequest(answer, "usage, top-usage, audit or drift"));

            limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 5)));
            Map<String, Object> drift = endpoint.report("drift", null, null, null, null, null, null, null, null,
                    null, null).getBody();
            assertThat(drift).containsEntry("mode", "apply")
                    .containsEntry("summary", "added 0, changed 1, removed 0, unchanged 0");
            assertThat((List<?>) drift.get("drift")).singleElement().satisfies(row -> assertThat(asMap(row))
                    .containsEntry("kind", "changed").containsEntry("target", "resource gpt-4")
                    .containsEntry("setting", "limits"));
        });
    }

    @SuppressWarnings("unchecked")
    private static void assertBadRequest(WebEndpointResponse<Map<String, Object>> answer, String says) {
        assertThat(answer.getStatus()).isEqualTo(400);
        assertThat(answer.getBody()).hasEntrySatisfying("error", error -> assertThat(error.toString()).contains(says));
    }

    private static Map<String, Object> asMap(Object row) {
        return (Map<String, Object>) row;
    }
}
