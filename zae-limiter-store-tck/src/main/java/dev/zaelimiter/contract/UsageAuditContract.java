package dev.zaelimiter.contract;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.AuditScope;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.store.UsagePeriod;
import dev.zaelimiter.store.UsageWrite;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** Usage history (per entity, resource, limit, hour and day) and the audit log, kept by the store. */
public abstract class UsageAuditContract extends StoreContractSupport {

    private static final Instant START = Instant.parse("2026-03-01T00:00:00Z");
    private static final Instant DAY_AFTER = START.plus(Duration.ofDays(1));

    @Test
    void everyKindOfCallIsCountedPerHourAndDay() {
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 2), Limit.perMinute("tpm", 100).soft()));
        limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tpm", 150)).close();   // leaves tpm in debt: overdrawn
        limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tpm", 10)).close();    // still in debt after it
        assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tpm", 10)))
                .isInstanceOf(RateLimitExceededException.class);
        clock.advance(Duration.ofHours(1));
        Lease lease = limiter.acquire("user-1", "gpt-4", consume("rpm", 1, "tpm", 40));
        lease.adjust("tpm", -15);
        lease.close();
        admin.setEntityDisabled("user-2", "gpt-4", DisabledMode.BYPASS);
        limiter.acquire("user-2", "gpt-4", consume("rpm", 1, "tpm", 70)).close();

        List<Usage> hours = admin.usage("user-1", UsageGranularity.HOUR, START, DAY_AFTER);
        assertThat(hours).extracting(Usage::from, Usage::limitName, Usage::consumed, Usage::admitted, Usage::refused,
                Usage::overdrawn, Usage::bypassed).containsExactly(
                tuple(START, "rpm", 2L, 2L, 1L, 0L, 0L),
                tuple(START, "tpm", 160L, 2L, 0L, 2L, 0L),
                tuple(START.plusSeconds(3600), "rpm", 1L, 1L, 0L, 0L, 0L),
                tuple(START.plusSeconds(3600), "tpm", 25L, 1L, 0L, 0L, 0L));
        assertThat(hours.get(0).to()).isEqualTo(START.plusSeconds(3600));
        assertThat(admin.usage("user-1", "gpt-4", "tpm", UsageGranularity.DAY, START, DAY_AFTER))
                .extracting(Usage::from, Usage::to, Usage::consumed, Usage::admitted, Usage::refused,
                        Usage::overdrawn)
                .as("a soft limit never refuses").containsExactly(tuple(START, DAY_AFTER, 185L, 3L, 0L, 2L));
        assertThat(admin.usage("user-2", "gpt-4", "tpm", UsageGranularity.HOUR, START, DAY_AFTER))
                .extracting(Usage::consumed, Usage::admitted, Usage::bypassed)
                .containsExactly(tuple(0L, 1L, 70L));
    }

    @Test
    void historyOutlivesResetsAndSurvivesAFailedWriteUnchanged() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
        for (int i = 0; i < 5; i++) {
            limiter.acquire("user-1", "api", consume("rpm", 1));
        }
        limiter.flushUsage();
        admin.resetBucket("user-1", "api");
        for (int i = 0; i < 3; i++) {
            limiter.acquire("user-1", "api", consume("rpm", 1));
        }
        RateLimiter other = newLimiter(store);
        other.acquire("user-1", "api", consume("rpm", 2));
        other.close();

        assertThat(admin.usage("user-1", "api", "rpm", UsageGranularity.HOUR, START, DAY_AFTER))
                .extracting(Usage::consumed, Usage::admitted).containsExactly(tuple(10L, 9L));
        assertThat(admin.usage("user-1", "api", "rpm", UsageGranularity.DAY, START, DAY_AFTER))
                .extracting(Usage::consumed, Usage::admitted).containsExactly(tuple(10L, 9L));
    }

    @Test
    void aWriteDeliveredTwiceOrRetriedCountsOnce() {
        UsagePeriod period = new UsagePeriod(new BucketKey("user-1", "api"), UsageGranularity.HOUR,
                START.toEpochMilli(), Map.of("rpm", new UsageCounts(3000, 3, 1, 0, 0)));
        assertThat(store.usage().add(new UsageWrite(period, "writer-a", 1))).isTrue();
        assertThat(store.usage().add(new UsageWrite(period, "writer-a", 1))).as("the duplicate").isFalse();
        assertThat(store.usage().add(new UsageWrite(period, "writer-b", 1))).as("another process").isTrue();
        assertThat(store.usage().add(new UsageWrite(period, "writer-a", 2))).as("the writer's next").isTrue();
        assertThat(store.usage().add(new UsageWrite(period, "writer-a", 1))).as("an old one, late").isFalse();

        assertThat(admin.usage("user-1", "api", "rpm", UsageGranularity.HOUR, START, DAY_AFTER))
                .extracting(Usage::consumed, Usage::admitted, Usage::refused).containsExactly(tuple(9L, 9L, 3L));
    }

    @Test
    void topUsageRanksEntitiesByConsumptionOverAWindow() {
        admin.setResourceDefaults("gpt-4", List.of(Limit.perMinute("tpm", 100_000)));
        admin.setResourceDefaults("gpt-3", List.of(Limit.perMinute("tpm", 100_000)));
        limiter.acquire("small", "gpt-4", consume("tpm", 10));
        limiter.acquire("big", "gpt-4", consume("tpm", 500));
        clock.advance(Duration.ofHours(2));
        limiter.acquire("middle", "gpt-4", consume("tpm", 200));
        limiter.acquire("middle", "gpt-4", consume("tpm", 200));
        limiter.acquire("other-resource", "gpt-3", consume("tpm", 9000));

        assertThat(admin.topUsage("gpt-4", "tpm", UsageGranularity.HOUR, START, DAY_AFTER, 2))
                .extracting(Usage::entityId, Usage::consumed, Usage::admitted, Usage::from, Usage::to)
                .containsExactly(tuple("big", 500L, 1L, START, DAY_AFTER), tuple("middle", 400L, 2L, START, DAY_AFTER));
        assertThat(admin.topUsage("gpt-4", "tpm", UsageGranularity.HOUR, START.plusSeconds(7200), DAY_AFTER, 5))
                .extracting(Usage::entityId).containsExactly("middle");
        assertThatThrownBy(() -> admin.topUsage("gpt-4", "tpm", UsageGranularity.DAY, DAY_AFTER, START, 5))
                .isInstanceOf(ValidationException.class).hasMessageContaining("from");
        assertThatThrownBy(() -> admin.topUsage("gpt-4", "tpm", UsageGranularity.DAY, START, DAY_AFTER, 0))
                .isInstanceOf(ValidationException.class).hasMessageContaining("n");
    }

    @Test
    void aReadCoversThePeriodsStartingInItsRangeUpToTheCap() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1000)));
        limiter.acquire("user-1", "api", consume("rpm", 1));
        clock.advance(Duration.ofHours(1));
        limiter.acquire("user-1", "api", consume("rpm", 2));
        Instant halfPast = START.plus(Duration.ofMinutes(30));
        Instant secondHour = START.plus(Duration.ofHours(1));

        assertThat(admin.usage("user-1", UsageGranularity.HOUR, halfPast, DAY_AFTER))
                .as("the hour that started at 00:00 is not in [00:30, ...)")
                .extracting(Usage::from, Usage::consumed).containsExactly(tuple(secondHour, 2L));
        assertThat(admin.usage("user-1", UsageGranularity.DAY, halfPast, DAY_AFTER)).isEmpty();
        assertThat(admin.usage("user-1", UsageGranularity.DAY, halfPast, halfPast.plusSeconds(60)))
                .as("no period starts in the range").isEmpty();
        assertThat(admin.topUsage("api", "rpm", UsageGranularity.DAY, halfPast, halfPast.plusSeconds(60), 5))
                .isEmpty();
        assertThat(admin.topUsage("api", "rpm", UsageGranularity.HOUR, halfPast, DAY_AFTER, 5))
                .as("the window as given").extracting(Usage::from, Usage::to, Usage::consumed)
                .containsExactly(tuple(halfPast, DAY_AFTER, 2L));

        Instant cap = START.plus(Duration.ofHours(RateLimiterAdmin.MAX_USAGE_PERIODS));
        assertThat(admin.usage("user-1", UsageGranularity.HOUR, START, cap)).hasSize(2);
        assertThat(admin.usage("user-1", UsageGranularity.HOUR, halfPast, cap.plus(Duration.ofMinutes(30))))
                .hasSize(1);
        for (ThrowingCallable tooLong : List.<ThrowingCallable>of(
                () -> admin.usage("user-1", UsageGranularity.HOUR, START, cap.plusMillis(1)),
                () -> admin.topUsage("api", "rpm", UsageGranularity.HOUR, START, cap.plusMillis(1), 5),
                () -> admin.usage("user-1", UsageGranularity.DAY, Instant.EPOCH, START))) {
            assertThatThrownBy(tooLong).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo("to"));
        }
        assertThatThrownBy(() -> admin.usage("user-1", UsageGranularity.DAY, Instant.MIN, Instant.MAX))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("from"));
    }

    @Test
    void aCursorThisLogDidNotGiveIsAValidationError() {
        admin.createEntity("user-1");
        admin.createEntity("user-2");
        AuditPage first = admin.audit(AuditQuery.all().pageSize(1));
        assertThat(admin.audit(AuditQuery.all().pageSize(1).after(first.nextCursor())).events())
                .extracting(AuditEvent::entityId).containsExactly("user-1");
        for (String cursor : List.of("", "garbage", " ", "12#x", "000000000000001", "000000000000001#")) {
            assertThatThrownBy(() -> admin.audit(AuditQuery.all().after(cursor)))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        }
    }

    @Test
    void degradedTokensAreKeptApartFromConsumedOnes() {
        UsagePeriod period = new UsagePeriod(new BucketKey("user-1", "api"), UsageGranularity.HOUR,
                START.toEpochMilli(), Map.of("rpm", new UsageCounts(1000, 3, 0, 0, 0, 5000)));
        assertThat(store.usage().add(new UsageWrite(period, "writer-a", 1))).isTrue();
        assertThat(store.usage().add(new UsageWrite(period, "writer-b", 1))).isTrue();

        assertThat(admin.usage("user-1", "api", "rpm", UsageGranularity.HOUR, START, DAY_AFTER))
                .extracting(Usage::consumed, Usage::admitted, Usage::degraded).containsExactly(tuple(2L, 6L, 10L));
        assertThat(admin.usage("user-1", UsageGranularity.HOUR, START, DAY_AFTER).get(0).toMap())
                .containsEntry("degraded", 10L);
    }

    @Test
    void resumeKeepsThePauseItEndedAndDeleteEntityTheDefaultsItDeleted() {
        Instant until = limiter.pause("gpt-4", Duration.ofMinutes(5));
        limiter.resume("gpt-4");
        Instant entityUntil = limiter.pause("user-1", "gpt-4", Duration.ofMinutes(1));
        limiter.resume("user-1", "gpt-4");
        limiter.resume("user-1", "gpt-4");
        admin.createEntity("user-1");
        admin.setLimits("user-1", "_default_", List.of(Limit.perMinute("rpm", 7)));
        admin.deleteEntity("user-1");

        List<AuditEvent> events = admin.audit(AuditQuery.all()).events();
        assertThat(events).filteredOn(e -> e.action().equals("resume")).extracting(AuditEvent::entityId,
                AuditEvent::before, AuditEvent::after).containsExactly(
                tuple("user-1", null, null),
                tuple("user-1", "paused until " + entityUntil, null),
                tuple(null, "paused until " + until, null));
        assertThat(events.get(0)).satisfies(e -> {
            assertThat(e.action()).isEqualTo("delete-entity");
            assertThat(e.before()).contains("user-1").contains("_default_")
                    .contains(Limit.perMinute("rpm", 7).toString());
        });
        assertThat(admin.getLimits("user-1", "_default_")).isEmpty();
    }

    @Test
    void deleteEntityRecordsEveryLevelItHadAndTheStoreListsThem() {
        admin.createEntity(Entity.of("user-1").withName("Ann"));
        admin.setLimits("user-1", "_default_", List.of(Limit.perMinute("rpm", 7)));
        admin.setLimits("user-1", "gpt-4", List.of(Limit.perMinute("tpm", 900)));
        admin.setEntityDisabled("user-1", "gpt-4", DisabledMode.BYPASS);
        admin.setEntityCascade("user-1", "claude", true);
        admin.setLimits("user-2", "gpt-4", List.of(Limit.perMinute("tpm", 5)));

        assertThat(store.entityScopes("user-1")).extracting(scope -> scope.resource())
                .containsExactly("_default_", "claude", "gpt-4");
        assertThat(store.entityScopes("nobody")).isEmpty();
        admin.deleteEntity("user-1");

        AuditEvent deleted = admin.audit(AuditQuery.entity("user-1")).events().get(0);
        assertThat(deleted.action()).isEqualTo("delete-entity");
        assertThat(deleted.before()).isEqualTo(Entity.of("user-1").withName("Ann")
                + ", _default_ limits [" + Limit.perMinute("rpm", 7) + "]"
                + ", claude cascade true"
                + ", gpt-4 limits [" + Limit.perMinute("tpm", 900) + "], disabled BYPASS");
        assertThat(store.entityScopes("user-1")).isEmpty();
        assertThat(store.entityScopes("user-2")).extracting(scope -> scope.resource()).containsExactly("gpt-4");
    }

    @Test
    void anUpstreamPauseIsAttributedToUpstreamNotToTheSignedInUser() {
        RateLimiter alice = RateLimiter.builder().store(store).clock(clock).actor(() -> "alice").build();
        alice.pause("openai", Duration.ofMinutes(1));
        clock.advance(Duration.ofSeconds(1));
        alice.pauseFromRetryAfter("openai", "20");
        clock.advance(Duration.ofSeconds(1));
        alice.pauseFromRetryAfter("user-1", "openai", "30");
        clock.advance(Duration.ofSeconds(1));
        alice.pauseForUpstream("openai", Duration.ofSeconds(40));
        clock.advance(Duration.ofSeconds(1));
        alice.pauseForUpstream("user-2", "openai", Duration.ofSeconds(50));

        assertThat(alice.admin().audit(AuditQuery.all()).events()).extracting(AuditEvent::actor,
                AuditEvent::action, AuditEvent::entityId).containsExactly(tuple("upstream", "pause", "user-2"),
                tuple("upstream", "pause", null), tuple("upstream", "pause", "user-1"),
                tuple("upstream", "pause", null), tuple("alice", "pause", null));
    }

    @Test
    void everyChangeIsAnAuditEventWithWhoWhenBeforeAndAfter() {
        RateLimiter alice = RateLimiter.builder().store(store).clock(clock).actor(() -> "alice").build();
        alice.admin().setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
        clock.advance(Duration.ofSeconds(1));
        alice.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 100)));
        alice.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 200)));
        alice.admin().createEntity(Entity.of("org-1"));
        alice.admin().createEntity(Entity.of("user-1"));
        alice.admin().setParent("user-1", "org-1");
        alice.admin().setLimits("user-1", "gpt-4", List.of(Limit.perMinute("rpm", 5)));
        alice.admin().setEntityDisabled("user-1", "gpt-4", DisabledMode.BYPASS);
        alice.admin().setResourceCascade("gpt-4", true);
        alice.pause("gpt-4", Duration.ofSeconds(30));
        alice.resume("gpt-4");
        alice.admin().resetBucket("user-1", "gpt-4");
        alice.admin().actingAs("declarations").deleteLimits("user-1", "gpt-4");
        alice.admin().setParent("user-1", null);
        alice.admin().deleteEntity("user-1");

        List<AuditEvent> all = admin.audit(AuditQuery.all()).events();
        assertThat(all).extracting(AuditEvent::action).containsExactly("delete-entity", "set-parent",
                "delete-limits", "reset-bucket", "resume", "pause", "set-cascade", "set-disabled", "set-limits",
                "set-parent", "create-entity", "create-entity", "set-limits", "set-limits", "set-limits");
        assertThat(all).filteredOn(e -> !e.action().equals("delete-limits")).extracting(AuditEvent::actor)
                .containsOnly("alice");
        assertThat(all.get(2)).satisfies(e -> {
            assertThat(e.actor()).isEqualTo("declarations");
            assertThat(e.scope()).isEqualTo(AuditScope.ENTITY_RESOURCE);
            assertThat(e.before()).contains("rpm").contains("5");
            assertThat(e.after()).isNull();
        });
        AuditEvent raised = all.get(all.size() - 3);
        assertThat(raised.scope()).isEqualTo(AuditScope.RESOURCE);
        assertThat(raised.before()).contains("100");
        assertThat(raised.after()).contains("200");
        assertThat(all.get(all.size() - 1)).satisfies(e -> {
            assertThat(e.scope()).isEqualTo(AuditScope.SYSTEM);
            assertThat(e.at()).isEqualTo(START);
            assertThat(e.before()).isNull();
        });

        assertThat(admin.audit(AuditQuery.system()).events()).hasSize(1);
        assertThat(admin.audit(AuditQuery.resource("gpt-4")).events()).extracting(AuditEvent::action)
                .containsExactly("resume", "pause", "set-cascade", "set-limits", "set-limits");
        assertThat(admin.audit(AuditQuery.entity("user-1")).events()).extracting(AuditEvent::action)
                .containsExactly("delete-entity", "set-parent", "delete-limits", "reset-bucket", "set-disabled",
                        "set-limits", "set-parent", "create-entity");
        assertThat(admin.audit(AuditQuery.entity("user-1", "gpt-4")).events()).hasSize(4);
        assertThat(admin.audit(AuditQuery.all().between(START, START.plusSeconds(1))).events())
                .extracting(AuditEvent::action).containsExactly("set-limits");
    }

    @Test
    void theAuditLogIsReadNewestFirstOnePageAtATime() {
        for (int i = 0; i < 7; i++) {
            admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10 + i)));
            clock.advance(Duration.ofMillis(i % 2));                   // some events share an instant
        }
        List<AuditEvent> read = new ArrayList<>();
        AuditQuery query = AuditQuery.resource("api").pageSize(3);
        AuditPage page = admin.audit(query);
        int pages = 1;
        read.addAll(page.events());
        while (page.nextCursor() != null) {
            page = admin.audit(query.after(page.nextCursor()));
            read.addAll(page.events());
            pages++;
        }
        assertThat(pages).isEqualTo(3);
        assertThat(read).extracting(AuditEvent::after).containsExactly(
                "[" + Limit.perMinute("rpm", 16) + "]", "[" + Limit.perMinute("rpm", 15) + "]",
                "[" + Limit.perMinute("rpm", 14) + "]", "[" + Limit.perMinute("rpm", 13) + "]",
                "[" + Limit.perMinute("rpm", 12) + "]", "[" + Limit.perMinute("rpm", 11) + "]",
                "[" + Limit.perMinute("rpm", 10) + "]");
        assertThatThrownBy(() -> AuditQuery.all().pageSize(0)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("pageSize");
    }
}
