package dev.zaelimiter.docs;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** The examples of {@code docs/usage-and-audit.md}. */
class UsageAuditDocsExamplesTest {

    private final InMemoryStore store = new InMemoryStore();
    private final String signedIn = "alice";

    private String currentUser() {
        return signedIn;
    }

    @Test
    void usageHistory() {
        // tag::usageHistory[]
        RateLimiter limiter = RateLimiter.builder()
                .store(store)
                .usageFlushInterval(Duration.ofSeconds(10))   // the default: one write per bucket period per 10 s
                .build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 60),
                Limit.perMinute("tpm", 100_000)));
        try (Lease lease = limiter.acquire("tenant-7", "gpt-4", Map.of("rpm", 1L, "tpm", 500L))) {
            lease.adjust("tpm", -180);                         // the model used 320 tokens, not 500
        }
        limiter.acquire("tenant-9", "gpt-4", Map.of("rpm", 1L, "tpm", 2_000L)).close();

        Instant now = limiter.clock().instant();
        Instant from = now.minus(Duration.ofDays(1));
        Instant to = now.plus(Duration.ofHours(1));
        List<Usage> hours = limiter.admin().usage("tenant-7", "gpt-4", "tpm", UsageGranularity.HOUR, from, to);
        assertThat(hours).singleElement().satisfies(hour -> {
            assertThat(hour.consumed()).isEqualTo(320);
            assertThat(hour.admitted()).isEqualTo(1);
            assertThat(hour.refused()).isZero();
        });

        List<Usage> top = limiter.admin().topUsage("gpt-4", "tpm", UsageGranularity.DAY, from, to, 10);
        assertThat(top).extracting(Usage::entityId).containsExactly("tenant-9", "tenant-7");
        limiter.close();                                       // writes what is left; call it on shutdown
        // end::usageHistory[]
    }

    @Test
    void usageWindow() {
        // tag::usageWindow[]
        Clock at1410 = Clock.fixed(Instant.parse("2026-03-02T14:10:00Z"), ZoneOffset.UTC);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(at1410).build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 100_000)));
        limiter.acquire("tenant-7", "gpt-4", Map.of("tpm", 500L)).close();      // counted in the 14:00 hour

        Instant halfPast = Instant.parse("2026-03-02T14:30:00Z");
        Instant evening = Instant.parse("2026-03-02T20:00:00Z");
        assertThat(limiter.admin().usage("tenant-7", UsageGranularity.HOUR, halfPast, evening))
                .isEmpty();                                    // the 14:00 hour starts before 14:30
        assertThat(limiter.admin().topUsage("gpt-4", "tpm", UsageGranularity.HOUR,
                        Instant.parse("2026-03-02T13:45:00Z"), evening, 10))
                .extracting(Usage::entityId, Usage::consumed, Usage::from, Usage::to)
                .containsExactly(tuple("tenant-7", 500L, Instant.parse("2026-03-02T13:45:00Z"), evening));
        assertThatThrownBy(() -> limiter.admin().usage("tenant-7", UsageGranularity.HOUR, halfPast,
                halfPast.plus(Duration.ofDays(401))))
                .isInstanceOf(ValidationException.class)       // over 9,600 periods: read days instead
                .hasMessageContaining("at most " + RateLimiterAdmin.MAX_USAGE_PERIODS + " periods");
        // end::usageWindow[]
    }

    @Test
    void auditLog() {
        // tag::auditLog[]
        RateLimiter limiter = RateLimiter.builder()
                .store(store)
                .actor(() -> currentUser())                    // who the audit log names for each change
                .build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 100_000)));
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 200_000)));
        limiter.admin().actingAs("nightly-job").resetBucket("tenant-7", "gpt-4");

        AuditPage page = limiter.admin().audit(AuditQuery.resource("gpt-4").pageSize(1));
        AuditEvent raised = page.events().get(0);              // newest first
        assertThat(raised.actor()).isEqualTo("alice");
        assertThat(raised.action()).isEqualTo("set-limits");
        assertThat(raised.before()).isEqualTo("[" + Limit.perMinute("tpm", 100_000) + "]");
        assertThat(raised.after()).isEqualTo("[" + Limit.perMinute("tpm", 200_000) + "]");

        AuditPage older = limiter.admin().audit(AuditQuery.resource("gpt-4").pageSize(1).after(page.nextCursor()));
        assertThat(older.events().get(0).before()).isNull();   // the first setting: nothing before
        assertThat(limiter.admin().audit(AuditQuery.entity("tenant-7")).events())
                .extracting(AuditEvent::actor, AuditEvent::action)
                .containsExactly(tuple("nightly-job", "reset-bucket"));
        assertThatThrownBy(() -> limiter.admin().audit(AuditQuery.all().after("page-2")))
                .isInstanceOf(ValidationException.class)       // a cursor the log did not give
                .hasMessageContaining("cursor");
        // end::auditLog[]
    }

    @Test
    void deleteEntityAudit() {
        // tag::deleteEntityAudit[]
        RateLimiterAdmin admin = RateLimiter.builder().store(store).build().admin();
        admin.createEntity("tenant-7");
        admin.setLimits("tenant-7", "_default_", List.of(Limit.perMinute("rpm", 60)));
        admin.setLimits("tenant-7", "gpt-4", List.of(Limit.perMinute("tpm", 50_000)));
        admin.deleteEntity("tenant-7");

        AuditEvent deleted = admin.audit(AuditQuery.entity("tenant-7")).events().get(0);
        assertThat(deleted.action()).isEqualTo("delete-entity");
        assertThat(deleted.before()).isEqualTo(Entity.of("tenant-7")
                + ", _default_ limits [" + Limit.perMinute("rpm", 60) + "]"
                + ", gpt-4 limits [" + Limit.perMinute("tpm", 50_000) + "]");
        // end::deleteEntityAudit[]
    }
}
