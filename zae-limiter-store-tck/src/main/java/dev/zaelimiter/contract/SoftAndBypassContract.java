package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Availability;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ResourceDisabledException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Store contract: soft limits and disabled modes (SPEC.md §3.8, seed 001). A soft limit is debited and may go into
 * debt but never rejects; a bypassed entity is admitted and debits nothing; a disabled one is refused and consumes
 * nothing. Uses only the public API and {@link #createStore()}, so every store runs it.
 */
public abstract class SoftAndBypassContract extends StoreContractSupport {

    protected static final String RESOURCE = "gpt-4";
    protected static final String OTHER_RESOURCE = "claude-sonnet";
    protected static final String USER = "user-1";
    protected static final String VIP = "vip-1";
    protected static final String DEFAULT = "_default_";

    private long available(String entityId, String limit) {
        return limiter.available(entityId, RESOURCE).get(limit);
    }

    private static LimitStatus status(List<LimitStatus> statuses, String entityId, String limit) {
        return statuses.stream()
                .filter(s -> s.entityId().equals(entityId) && s.limitName().equals(limit))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no status for " + entityId + "/" + limit + " in " + statuses));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object map) {
        return (Map<String, Object>) map;
    }

    /** Hard rpm 500 and soft tpm 50,000 on {@link #RESOURCE}, as in the seed. */
    private void hardRpmSoftTpm() {
        admin.setResourceDefaults(RESOURCE, List.of(
                Limit.perMinute("rpm", 500),
                Limit.perMinute("tpm", 50_000).soft()));
    }

    // ---- soft limits

    @Test
    void softLimitIsDebitedAndGoesIntoDebtWithoutRejecting() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 1_000).soft()));

        Lease first = limiter.acquire(USER, RESOURCE, consume("tpm", 800));
        Lease second = limiter.acquire(USER, RESOURCE, consume("tpm", 800));
        Lease third = limiter.acquire(USER, RESOURCE, consume("tpm", 800));

        assertThat(available(USER, "tpm")).isEqualTo(-1_400);
        assertThat(first.overdrawn()).isEmpty();
        assertThat(second.overdrawn()).containsExactly("tpm");
        assertThat(third.overdrawn()).containsExactly("tpm");
        assertThat(third.statuses()).singleElement().satisfies(s -> {
            assertThat(s.soft()).isTrue();
            assertThat(s.exceeded()).isFalse();
            assertThat(s.available()).isEqualTo(-1_400);
            assertThat(s.overdrawn()).isTrue();
            assertThat(s.retryAfter()).isZero();
        });
    }

    @Test
    void softLimitCostAboveCapacityIsAdmittedIntoDebt() {
        hardRpmSoftTpm();

        // seed 001: consume tpm 80,000 against a soft tpm of 50,000 is admitted and overdraws tpm
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 80_000));

        assertThat(lease.overdrawn()).containsExactly("tpm");
        assertThat(available(USER, "tpm")).isEqualTo(-30_000);
        assertThat(available(USER, "rpm")).isEqualTo(499);
    }

    @Test
    void softLimitRecoversFromDebtByRefill() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 60).soft()));
        limiter.acquire(USER, RESOURCE, consume("tpm", 60));
        limiter.acquire(USER, RESOURCE, consume("tpm", 60));
        assertThat(available(USER, "tpm")).isEqualTo(-60);

        clock.advance(Duration.ofSeconds(90));

        assertThat(available(USER, "tpm")).isEqualTo(30);
        assertThat(limiter.acquire(USER, RESOURCE, consume("tpm", 1)).overdrawn()).isEmpty();
    }

    @Test
    void hardLimitBesideASoftOneStillRejectsAndSoftIsReportedAsPassed() {
        admin.setResourceDefaults(RESOURCE, List.of(
                Limit.perMinute("rpm", 2),
                Limit.perHour("tpm", 100).soft()));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 100));
        Lease second = limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 100));
        assertThat(second.overdrawn()).containsExactly("tpm");

        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 100)),
                RateLimitExceededException.class);

        assertThat(e).isNotNull();
        assertThat(e.violations()).singleElement().satisfies(v -> {
            assertThat(v.limitName()).isEqualTo("rpm");
            assertThat(v.soft()).isFalse();
            assertThat(v.exceeded()).isTrue();
        });
        assertThat(e.passed()).singleElement().satisfies(p -> {
            assertThat(p.limitName()).isEqualTo("tpm");
            assertThat(p.soft()).isTrue();
            assertThat(p.exceeded()).isFalse();
            assertThat(p.available()).isEqualTo(-100);
            assertThat(p.overdrawn()).isTrue();
            assertThat(p.retryAfter()).isZero();
        });
        // rpm needs one token at 2 per minute: 30 s. The soft tpm, 200 tokens short at 100 per hour, never counts.
        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(e.toMap()).containsEntry("retry_after_ms", 30_000L);
        assertThat((List<?>) e.toMap().get("violations")).singleElement()
                .satisfies(m -> assertThat(asMap(m)).containsEntry("limit", "rpm").containsEntry("soft", false));
        assertThat((List<?>) e.toMap().get("passed")).singleElement()
                .satisfies(m -> assertThat(asMap(m)).containsEntry("limit", "tpm").containsEntry("soft", true));
        assertThat(available(USER, "tpm")).as("a rejected call debits nothing, soft limits included")
                .isEqualTo(-100);
        assertThat(available(USER, "rpm")).isZero();

        clock.advance(e.retryAfter());
        limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 100));
    }

    @Test
    void softOnlyConfigurationNeverRejects() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perSecond("rps", 1).soft()));

        for (int i = 0; i < 50; i++) {
            limiter.acquire(USER, RESOURCE, consume("rps", 1));
        }

        assertThat(available(USER, "rps")).isEqualTo(-49);
    }

    @Test
    void entityLevelHardLimitOverridesResourceLevelSoftOne() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 100).soft()));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("tpm", 100)));

        limiter.acquire(USER, RESOURCE, consume("tpm", 100));
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("tpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);

        limiter.acquire("user-2", RESOURCE, consume("tpm", 100));
        Lease other = limiter.acquire("user-2", RESOURCE, consume("tpm", 1));
        assertThat(other.overdrawn()).containsExactly("tpm");
    }

    @Test
    void entityLevelSoftLimitOverridesResourceLevelHardOne() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 100)));
        admin.setLimits(USER, DEFAULT, List.of(Limit.perMinute("tpm", 100).soft()));

        limiter.acquire(USER, RESOURCE, consume("tpm", 100));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 1));
        assertThat(lease.overdrawn()).containsExactly("tpm");

        limiter.acquire("user-2", RESOURCE, consume("tpm", 100));
        assertThatThrownBy(() -> limiter.acquire("user-2", RESOURCE, consume("tpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void systemLevelSoftnessTravelsWithTheLimit() {
        admin.setSystemDefaults(List.of(Limit.perMinute("tpm", 10).soft()));

        limiter.acquire(USER, RESOURCE, consume("tpm", 10));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 10));

        assertThat(lease.overdrawn()).containsExactly("tpm");
    }

    @Test
    void softLimitOfACascadeParentNeverRejectsTheChild() {
        admin.createEntity(Entity.of("org-1"));
        admin.createEntity(new Entity(USER, null, "org-1", true));
        admin.setLimits("org-1", RESOURCE, List.of(Limit.perMinute("tpm", 100).soft()));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));

        limiter.acquire(USER, RESOURCE, consume("tpm", 100));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 50));

        assertThat(lease.overdrawn()).as("the child itself is not in debt").isEmpty();
        LimitStatus parent = status(lease.statuses(), "org-1", "tpm");
        assertThat(parent.soft()).isTrue();
        assertThat(parent.overdrawn()).isTrue();
        assertThat(parent.available()).isEqualTo(-50);
        assertThat(available("org-1", "tpm")).isEqualTo(-50);
        assertThat(available(USER, "tpm")).isEqualTo(850);
    }

    @Test
    void perCallOverrideDeclaringASoftLimitAppliesToThatCallOnly() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 10)));
        List<Limit> softOverride = List.of(Limit.perMinute("tpm", 10).soft());

        limiter.acquire(AcquireRequest.of(USER, RESOURCE).consume("tpm", 10).limits(softOverride));
        Lease lease = limiter.acquire(AcquireRequest.of(USER, RESOURCE).consume("tpm", 5).limits(softOverride));

        assertThat(lease.overdrawn()).containsExactly("tpm");
        assertThat(lease.statuses()).singleElement().satisfies(s -> assertThat(s.soft()).isTrue());
        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("tpm", 1)), RateLimitExceededException.class);
        assertThat(e).isNotNull();
        assertThat(e.violations()).singleElement().satisfies(v -> {
            assertThat(v.soft()).isFalse();
            assertThat(v.available()).isEqualTo(-5);
        });
        assertThat(admin.getResourceDefaults(RESOURCE)).containsExactly(Limit.perMinute("tpm", 10));
        assertThat(limiter.acquire("user-2", RESOURCE, consume("tpm", 10)).statuses())
                .singleElement().satisfies(s -> assertThat(s.soft()).isFalse());
    }

    @Test
    void perCallOverrideDeclaringAHardLimitIsEnforcedWhereStoredConfigIsSoft() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 10).soft()));
        List<Limit> hardOverride = List.of(Limit.perMinute("tpm", 10));
        limiter.acquire(USER, RESOURCE, consume("tpm", 10));

        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(AcquireRequest.of(USER, RESOURCE).consume("tpm", 1).limits(hardOverride)),
                RateLimitExceededException.class);

        assertThat(e).isNotNull();
        assertThat(e.violations()).singleElement().satisfies(v -> assertThat(v.soft()).isFalse());
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 1));
        assertThat(lease.overdrawn()).containsExactly("tpm");
        assertThat(admin.getResourceDefaults(RESOURCE)).containsExactly(Limit.perMinute("tpm", 10).soft());
    }

    @Test
    void checkAvailabilityReportsASoftLimitsNegativeBalanceAndStaysAllowed() {
        hardRpmSoftTpm();
        limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 50_000));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 20_000));

        Availability a = limiter.checkAvailability(USER, RESOURCE, consume("rpm", 1, "tpm", 40_000));

        assertThat(a.allowed()).isTrue();
        assertThat(a.bypassed()).isFalse();
        assertThat(a.retryAfter()).isZero();
        LimitStatus tpm = status(a.statuses(), USER, "tpm");
        assertThat(tpm.available()).isEqualTo(-20_000);
        assertThat(tpm.soft()).isTrue();
        assertThat(tpm.exceeded()).isFalse();
        assertThat(tpm.overdrawn()).isTrue();
        assertThat(available(USER, "tpm")).as("checkAvailability consumes nothing").isEqualTo(-20_000);
        assertThat(available(USER, "rpm")).isEqualTo(498);
    }

    @Test
    void checkAvailabilityStillRefusesOnAnExhaustedHardLimitBesideASoftOne() {
        admin.setResourceDefaults(RESOURCE, List.of(
                Limit.perMinute("rpm", 1),
                Limit.perMinute("tpm", 10).soft()));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 10));

        Availability a = limiter.checkAvailability(USER, RESOURCE, consume("rpm", 1, "tpm", 10));

        assertThat(a.allowed()).isFalse();
        assertThat(a.retryAfter()).isEqualTo(Duration.ofMinutes(1));
        assertThat(status(a.statuses(), USER, "tpm").exceeded()).isFalse();
        assertThat(status(a.statuses(), USER, "rpm").exceeded()).isTrue();
    }

    @Test
    void rollbackOfAnOverdrawingLeaseRestoresTheSoftBalance() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 100).soft()));
        limiter.acquire(USER, RESOURCE, consume("tpm", 100));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 70));
        lease.adjust("tpm", 30);
        assertThat(available(USER, "tpm")).isEqualTo(-100);

        lease.rollback();

        assertThat(available(USER, "tpm")).isZero();
    }

    // ---- bypass

    @Test
    void bypassAdmitsAndLeavesBalancesUntouched() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 2), Limit.perMinute("tpm", 100)));
        admin.setEntityDisabled(VIP, RESOURCE, DisabledMode.BYPASS);

        for (int i = 0; i < 10; i++) {
            Lease lease = limiter.acquire(VIP, RESOURCE, consume("rpm", 1, "tpm", 100));
            assertThat(lease.bypassed()).isTrue();
            assertThat(lease.overdrawn()).isEmpty();
            lease.adjust("tpm", 50);
            lease.close();
        }

        assertThat(admin.getEntityDisabled(VIP, RESOURCE)).contains(DisabledMode.BYPASS);
        assertThat(available(VIP, "rpm")).isEqualTo(2);
        assertThat(available(VIP, "tpm")).isEqualTo(100);
    }

    @Test
    void bypassedEntityIsAdmittedForACostAboveCapacity() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 2)));
        admin.setEntityDisabled(VIP, RESOURCE, DisabledMode.BYPASS);

        // bypass admits and checks nothing (SPEC §3.8), so a capacity that is never consulted cannot refuse the call
        Lease lease = limiter.acquire(VIP, RESOURCE, consume("rpm", 5));

        assertThat(lease.bypassed()).isTrue();
        assertThat(available(VIP, "rpm")).isEqualTo(2);
    }

    @Test
    void bypassedRollbackLeavesBalancesUntouched() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 5)));
        limiter.acquire(VIP, RESOURCE, consume("rpm", 3));
        admin.setEntityDisabled(VIP, DEFAULT, DisabledMode.BYPASS);

        Lease lease = limiter.acquire(VIP, RESOURCE, consume("rpm", 4));
        lease.rollback();

        assertThat(available(VIP, "rpm")).isEqualTo(2);
    }

    @Test
    void checkAvailabilityOfABypassedEntityIsAllowedAndReportsBalancesAsTheyStand() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 2)));
        limiter.acquire(VIP, RESOURCE, consume("rpm", 2));
        assertThat(limiter.checkAvailability(VIP, RESOURCE, consume("rpm", 1)).allowed()).isFalse();

        admin.setEntityDisabled(VIP, RESOURCE, DisabledMode.BYPASS);
        Availability a = limiter.checkAvailability(VIP, RESOURCE, consume("rpm", 1));

        assertThat(a.bypassed()).isTrue();
        assertThat(a.allowed()).isTrue();
        assertThat(a.retryAfter()).isZero();
        assertThat(a.statuses()).singleElement().satisfies(s -> {
            assertThat(s.available()).isZero();
            assertThat(s.exceeded()).isFalse();
        });
        assertThat(limiter.acquire(VIP, RESOURCE, consume("rpm", 1)).bypassed()).isTrue();
    }

    @Test
    void enforcedEntityIsNotReportedBypassed() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 2)));

        assertThat(limiter.checkAvailability(USER, RESOURCE, consume("rpm", 1)).bypassed()).isFalse();
        assertThat(limiter.acquire(USER, RESOURCE, consume("rpm", 1)).bypassed()).isFalse();
    }

    // the disabled-mode table of seed 001, row by row; "entity" is set on the entity's _default_ level or on the
    // entity for this resource

    @Test
    void tableResourceBypassEntityUnsetIsBypassed() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setResourceDisabled(RESOURCE, DisabledMode.BYPASS);

        Lease first = limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        Lease second = limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(admin.getResourceDisabled(RESOURCE)).contains(DisabledMode.BYPASS);
        assertThat(first.bypassed()).isTrue();
        assertThat(second.bypassed()).isTrue();
        assertThat(available(USER, "rpm")).isEqualTo(1);
    }

    @ParameterizedTest(name = "entity level {0}")
    @ValueSource(strings = {RESOURCE, DEFAULT})
    void tableResourceDisabledEntityBypassIsACarveOut(String entityLevel) {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setResourceDisabled(RESOURCE, DisabledMode.DISABLED);
        admin.setEntityDisabled(VIP, entityLevel, DisabledMode.BYPASS);

        Lease lease = limiter.acquire(VIP, RESOURCE, consume("rpm", 1));
        limiter.acquire(VIP, RESOURCE, consume("rpm", 1));

        assertThat(lease.bypassed()).isTrue();
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(ResourceDisabledException.class);
    }

    @ParameterizedTest(name = "entity level {0}")
    @ValueSource(strings = {RESOURCE, DEFAULT})
    void tableResourceBypassEntityDisabledRaises(String entityLevel) {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 5)));
        admin.setResourceDisabled(RESOURCE, DisabledMode.BYPASS);
        admin.setEntityDisabled(USER, entityLevel, DisabledMode.DISABLED);

        ResourceDisabledException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)), ResourceDisabledException.class);

        assertThat(e).isNotNull();
        assertThat(e.entityId()).isEqualTo(USER);
        assertThat(e.resource()).isEqualTo(RESOURCE);
        assertThat(limiter.acquire("user-2", RESOURCE, consume("rpm", 1)).bypassed()).isTrue();
    }

    @ParameterizedTest(name = "entity level {0}")
    @ValueSource(strings = {RESOURCE, DEFAULT})
    void tableResourceBypassEntityEnabledIsEnforced(String entityLevel) {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setResourceDisabled(RESOURCE, DisabledMode.BYPASS);
        admin.setEntityDisabled(USER, entityLevel, DisabledMode.ENABLED);

        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(lease.bypassed()).isFalse();
        assertThat(available(USER, "rpm")).isZero();
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(admin.getEntityDisabled(USER, entityLevel)).contains(DisabledMode.ENABLED);
    }

    @Test
    void entityDefaultLevelSitsBetweenEntityResourceAndResource() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setResourceDisabled(RESOURCE, DisabledMode.DISABLED);
        admin.setResourceDisabled(OTHER_RESOURCE, DisabledMode.DISABLED);

        // entity default beats the resource
        admin.setEntityDisabled(VIP, DEFAULT, DisabledMode.BYPASS);
        assertThat(limiter.acquire(VIP, RESOURCE, consume("rpm", 1)).bypassed()).isTrue();
        assertThat(limiter.acquire(VIP, OTHER_RESOURCE, consume("rpm", 1)).bypassed()).isTrue();

        // entity on the resource beats the entity default
        admin.setEntityDisabled(VIP, RESOURCE, DisabledMode.ENABLED);
        Lease enforced = limiter.acquire(VIP, RESOURCE, consume("rpm", 1));
        assertThat(enforced.bypassed()).isFalse();
        assertThatThrownBy(() -> limiter.acquire(VIP, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(limiter.acquire(VIP, OTHER_RESOURCE, consume("rpm", 1)).bypassed()).isTrue();

        admin.setEntityDisabled(VIP, RESOURCE, DisabledMode.DISABLED);
        assertThatThrownBy(() -> limiter.acquire(VIP, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(ResourceDisabledException.class);

        // cleared: back to the entity default, then to the resource
        admin.clearEntityDisabled(VIP, RESOURCE);
        assertThat(admin.getEntityDisabled(VIP, RESOURCE)).isEmpty();
        assertThat(limiter.acquire(VIP, RESOURCE, consume("rpm", 1)).bypassed()).isTrue();
        admin.clearEntityDisabled(VIP, DEFAULT);
        assertThatThrownBy(() -> limiter.acquire(VIP, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(ResourceDisabledException.class);
    }

    @Test
    void entityDefaultDisabledBeatsResourceBypassAndEntityResourceBypassBeatsBoth() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setResourceDisabled(RESOURCE, DisabledMode.BYPASS);
        admin.setEntityDisabled(USER, DEFAULT, DisabledMode.DISABLED);

        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(ResourceDisabledException.class);

        admin.setEntityDisabled(USER, RESOURCE, DisabledMode.BYPASS);
        assertThat(limiter.acquire(USER, RESOURCE, consume("rpm", 1)).bypassed()).isTrue();
    }

    @Test
    void disabledRaisesAndConsumesNothing() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 1_000)));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 100));
        admin.setResourceDisabled(RESOURCE, DisabledMode.DISABLED);

        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1, "tpm", 100)))
                    .isInstanceOf(ResourceDisabledException.class);
        }
        assertThat(admin.getResourceDisabled(RESOURCE)).contains(DisabledMode.DISABLED);

        admin.clearResourceDisabled(RESOURCE);
        assertThat(admin.getResourceDisabled(RESOURCE)).isEmpty();
        assertThat(available(USER, "rpm")).isEqualTo(9);
        assertThat(available(USER, "tpm")).isEqualTo(900);
    }

    @Test
    void disabledOnOneResourceLeavesOthersEnforced() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setEntityDisabled(USER, RESOURCE, DisabledMode.DISABLED);

        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(ResourceDisabledException.class);
        Lease lease = limiter.acquire(USER, OTHER_RESOURCE, consume("rpm", 1));
        assertThat(lease.bypassed()).isFalse();
        assertThatThrownBy(() -> limiter.acquire(USER, OTHER_RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void liftingABypassResumesWithTheBalanceTheEntityHad() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 5)));
        limiter.acquire(USER, RESOURCE, consume("rpm", 3));
        admin.setResourceDisabled(RESOURCE, DisabledMode.BYPASS);

        for (int i = 0; i < 20; i++) {
            assertThat(limiter.acquire(USER, RESOURCE, consume("rpm", 1)).bypassed()).isTrue();
        }
        admin.clearResourceDisabled(RESOURCE);

        assertThat(available(USER, "rpm")).isEqualTo(2);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 2));
        assertThat(lease.bypassed()).isFalse();
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void bypassedEntityDoesNotGoIntoDebtOnSoftLimits() {
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 10).soft()));
        admin.setEntityDisabled(VIP, DEFAULT, DisabledMode.BYPASS);

        Lease lease = limiter.acquire(VIP, RESOURCE, consume("tpm", 10));
        Lease again = limiter.acquire(VIP, RESOURCE, consume("tpm", 10));

        assertThat(lease.bypassed()).isTrue();
        assertThat(again.overdrawn()).isEmpty();
        assertThat(available(VIP, "tpm")).isEqualTo(10);
    }
}
