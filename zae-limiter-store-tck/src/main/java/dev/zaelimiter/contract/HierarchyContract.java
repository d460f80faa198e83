package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Decision;
import dev.zaelimiter.Availability;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.Lease;
import dev.zaelimiter.LeaseClosedException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterListener;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Store contract: parent/child hierarchy and cascade (SPEC.md §3.5, seed 004). A cascading child spends its parent's
 * own limits for the resource too, all or nothing; the cascade decision follows the per-resource policy, then the
 * child's creation flag; {@code setParent} moves future debits only. Uses only the public API and
 * {@link #createStore()}, so every store runs it.
 */
public abstract class HierarchyContract extends StoreContractSupport {

    protected static final String RESOURCE = "gpt-4";
    protected static final String OTHER_RESOURCE = "llm";
    protected static final String ORG = "org-acme";
    protected static final String ORG2 = "org-south";
    protected static final String USER = "user-alice";
    protected static final String USER2 = "user-bob";

    // ---- helpers

    private void createParent(String id) {
        admin.createEntity(Entity.of(id));
    }

    private void createChild(String id, String parent, boolean cascade) {
        admin.createEntity(new Entity(id, null, parent, cascade));
    }

    private long available(String entityId, String resource, String limit) {
        return limiter.available(entityId, resource).get(limit);
    }

    private long available(String entityId, String limit) {
        return available(entityId, RESOURCE, limit);
    }

    private static List<String> entitiesOf(List<LimitStatus> statuses) {
        return statuses.stream().map(LimitStatus::entityId).distinct().toList();
    }

    /** Child {@link #USER} under {@link #ORG}, both with their own tpm on {@link #RESOURCE}. */
    private void cascadingPair(long childTpm, long parentTpm) {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("tpm", parentTpm)));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("tpm", childTpm)));
    }

    // ---- cascade debits

    @Test
    void cascadeDebitsChildAndParent() {
        cascadingPair(10_000, 100_000);

        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 500));

        assertThat(available(USER, "tpm")).isEqualTo(9_500);
        assertThat(available(ORG, "tpm")).isEqualTo(99_500);
        assertThat(entitiesOf(lease.statuses())).containsExactly(USER, ORG);
        assertThat(lease.statuses()).filteredOn(s -> s.entityId().equals(ORG)).singleElement()
                .satisfies(s -> {
                    assertThat(s.limitName()).isEqualTo("tpm");
                    assertThat(s.capacity()).isEqualTo(100_000);
                    assertThat(s.available()).isEqualTo(99_500);
                    assertThat(s.requested()).isEqualTo(500);
                    assertThat(s.exceeded()).isFalse();
                });
    }

    @Test
    void siblingsShareTheParentBudget() {
        createParent(ORG);
        createChild(USER, ORG, true);
        createChild(USER2, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 3)));
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 100)));

        limiter.acquire(USER, RESOURCE, consume("rpm", 2));
        limiter.acquire(USER2, RESOURCE, consume("rpm", 1));

        assertThatThrownBy(() -> limiter.acquire(USER2, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(available(USER, "rpm")).isEqualTo(98);
        assertThat(available(USER2, "rpm")).isEqualTo(99);
        assertThat(available(ORG, "rpm")).isZero();
    }

    @Test
    void parentExhaustedLeavesChildUndebitedAndRejectionListsBothEntities() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)), RateLimitExceededException.class);

        assertThat(e).isNotNull();
        assertThat(available(USER, "rpm")).as("child keeps its tokens: all or nothing").isEqualTo(9);
        assertThat(available(ORG, "rpm")).isZero();
        assertThat(entitiesOf(e.statuses())).containsExactly(USER, ORG);
        assertThat(e.violations()).singleElement().satisfies(v -> {
            assertThat(v.entityId()).isEqualTo(ORG);
            assertThat(v.resource()).isEqualTo(RESOURCE);
            assertThat(v.limitName()).isEqualTo("rpm");
            assertThat(v.available()).isZero();
            assertThat(v.requested()).isEqualTo(1);
            assertThat(v.retryAfter()).isPositive();
        });
        assertThat(e.passed()).singleElement().satisfies(p -> {
            assertThat(p.entityId()).isEqualTo(USER);
            assertThat(p.available()).isEqualTo(9);
            assertThat(p.exceeded()).isFalse();
        });
        assertThat(e.retryAfter()).isEqualTo(e.violations().get(0).retryAfter());

        clock.advance(e.retryAfter());
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(available(ORG, "rpm")).isZero();
        assertThat(available(USER, "rpm")).as("refilled to 10 during the wait, then debited").isEqualTo(9);
    }

    @Test
    void childExhaustedLeavesParentUndebited() {
        cascadingPair(100, 10_000);
        limiter.acquire(USER, RESOURCE, consume("tpm", 100));

        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("tpm", 50)), RateLimitExceededException.class);

        assertThat(e).isNotNull();
        assertThat(available(ORG, "tpm")).isEqualTo(9_900);
        assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly(USER);
        assertThat(entitiesOf(e.statuses())).containsExactly(USER, ORG);
    }

    @Test
    void childRefusalLeavesTheParentsSlotsAndTheirConsumptionAsTheyWere() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.concurrency("inflight", 5, Duration.ofMinutes(1))));
        admin.setLimits(USER, RESOURCE, List.of(Limit.concurrency("inflight", 1, Duration.ofMinutes(1)),
                Limit.perMinute("tpm", 1000)));
        limiter.acquire(USER, RESOURCE, consume("tpm", 1));

        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("tpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);

        assertThat(available(ORG, "inflight")).isEqualTo(4);
        assertThat(limiter.inspect(ORG, RESOURCE).limits().get(0).consumed())
                .as("a refused call consumes no slot of the parent").isEqualTo(1);
    }

    @Test
    void checkAvailabilityOfACascadingChildSeesTheParentAndConsumesNothing() {
        cascadingPair(1_000, 100);
        limiter.acquire(USER, RESOURCE, consume("tpm", 100));

        Availability a = limiter.checkAvailability(USER, RESOURCE, consume("tpm", 10));

        assertThat(a.allowed()).isFalse();
        assertThat(a.retryAfter()).isPositive();
        assertThat(entitiesOf(a.statuses())).containsExactly(USER, ORG);
        assertThat(available(USER, "tpm")).isEqualTo(900);
        assertThat(available(ORG, "tpm")).isZero();
    }

    @Test
    void parentWithoutOwnLimitsFallsBackToResourceDefaults() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 100)));
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 2)));

        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(lease.statuses()).filteredOn(s -> s.entityId().equals(ORG)).singleElement()
                .satisfies(s -> assertThat(s.capacity()).isEqualTo(2));
        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)), RateLimitExceededException.class);
        assertThat(e).isNotNull();
        assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly(ORG);
        assertThat(available(USER, "rpm")).isEqualTo(98);
    }

    @Test
    void parentWithoutOwnOrResourceLimitsFallsBackToSystemDefaults() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 100)));
        admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 1)));

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(available(ORG, "rpm")).isZero();
        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)), RateLimitExceededException.class);
        assertThat(e).isNotNull();
        assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly(ORG);
        assertThat(available(USER, "rpm")).isEqualTo(99);
    }

    @Test
    void aParentWithNoLimitsAtAnyLevelIsNotDebitedAndEachSuchCallIsReported() {
        List<String> reported = new CopyOnWriteArrayList<>();
        RateLimiter observed = RateLimiter.builder().store(store).clock(clock).listener(new RateLimiterListener() {
            @Override
            public void onDecision(Decision decision) {
            }

            @Override
            public void onParentNotDebited(String entityId, String parentId, String resource) {
                reported.add(entityId + " -> " + parentId + " on " + resource);
            }
        }).build();
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 10)));

        Lease lease = observed.acquire(USER, RESOURCE, consume("rpm", 1));
        observed.acquire(USER, RESOURCE, consume("rpm", 1)).close();
        assertThat(lease.statuses()).extracting(LimitStatus::entityId).containsOnly(USER);
        assertThat(reported).containsExactly(USER + " -> " + ORG + " on " + RESOURCE,
                USER + " -> " + ORG + " on " + RESOURCE);
        assertThatThrownBy(() -> observed.acquire(USER, RESOURCE, consume("rpm", 9)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(reported).as("a refused call debits nobody").hasSize(2);

        // once the resource has defaults, the parent is debited against them (the seeds' rule) and nothing is reported
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 3)));
        observed.acquire(USER, RESOURCE, consume("rpm", 1)).close();
        assertThat(available(ORG, "rpm")).isEqualTo(2);
        assertThat(reported).hasSize(2);
    }

    @Test
    void parentsOwnLimitsWinOverResourceDefaults() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 50)));

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class)
                .satisfies(t -> assertThat(((RateLimitExceededException) t).violations())
                        .extracting(LimitStatus::entityId).containsExactly(USER));

        assertThat(available(ORG, "rpm")).isEqualTo(49);
    }

    @Test
    void hierarchiesHaveTwoLevels() {
        createParent(ORG);
        createChild("team-1", ORG, true);

        ValidationException grandchild = catchThrowableOfType(
                () -> admin.createEntity(new Entity(USER, null, "team-1", true)), ValidationException.class);
        assertThat(grandchild).isNotNull().hasMessageContaining("team-1").hasMessageContaining("two levels");
        assertThat(admin.getEntity(USER)).isEmpty();

        createParent(USER);
        assertThatThrownBy(() -> admin.setParent(USER, "team-1")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> admin.setParent(ORG, USER))
                .as("an entity with children cannot become a child").isInstanceOf(ValidationException.class);
        assertThat(admin.getEntity(USER)).get().extracting(Entity::parentId).isNull();
        assertThat(admin.getEntity(ORG)).get().extracting(Entity::parentId).isNull();
    }

    // ---- when an entity does not cascade

    @Test
    void entityWithoutParentNeverCascadesEvenWithPolicyOn() {
        admin.createEntity(new Entity(USER, null, null, true));
        admin.setResourceCascade(RESOURCE, true);
        admin.setEntityCascade(USER, RESOURCE, true);
        admin.setEntityCascade(USER, "_default_", true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 5)));

        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        Lease noRecord = limiter.acquire("no-record", RESOURCE, consume("rpm", 1));

        assertThat(entitiesOf(lease.statuses())).containsExactly(USER);
        assertThat(entitiesOf(noRecord.statuses())).containsExactly("no-record");
        assertThat(entitiesOf(limiter.checkAvailability(USER, RESOURCE, consume("rpm", 1)).statuses()))
                .containsExactly(USER);
    }

    @Test
    void entityCreatedWithoutCascadeDoesNotDebitItsParent() {
        createParent(ORG);
        createChild(USER, ORG, false);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("tpm", 100)));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));

        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 500));

        assertThat(entitiesOf(lease.statuses())).containsExactly(USER);
        assertThat(available(ORG, "tpm")).isEqualTo(100);
        assertThat(available(USER, "tpm")).isEqualTo(500);
    }

    // ---- cascade policy per resource

    @Test
    void noPolicySetMeansTheCreationFlag() {
        createParent(ORG);
        createChild(USER, ORG, true);
        createChild(USER2, ORG, false);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));

        assertThat(admin.getResourceCascade(RESOURCE)).isEmpty();
        assertThat(admin.getEntityCascade(USER, RESOURCE)).isEmpty();
        assertThat(admin.getEntityCascade(USER, "_default_")).isEmpty();
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        limiter.acquire(USER2, RESOURCE, consume("rpm", 1));

        assertThat(available(ORG, "rpm")).isEqualTo(9);
    }

    @Test
    void resourcePolicyOnCascadesAnEntityCreatedWithoutCascadeOnThatResourceOnly() {
        createParent(ORG);
        createChild(USER, ORG, false);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceCascade(RESOURCE, true);

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        limiter.acquire(USER, OTHER_RESOURCE, consume("rpm", 1));

        assertThat(admin.getResourceCascade(RESOURCE)).contains(true);
        assertThat(available(ORG, RESOURCE, "rpm")).isEqualTo(9);
        assertThat(available(ORG, OTHER_RESOURCE, "rpm")).isEqualTo(10);
    }

    @Test
    void resourcePolicyOffStopsAnEntityCreatedWithCascade() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceCascade(OTHER_RESOURCE, false);

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        Lease lease = limiter.acquire(USER, OTHER_RESOURCE, consume("rpm", 1));

        assertThat(entitiesOf(lease.statuses())).containsExactly(USER);
        assertThat(available(ORG, RESOURCE, "rpm")).isEqualTo(9);
        assertThat(available(ORG, OTHER_RESOURCE, "rpm")).isEqualTo(10);
    }

    @Test
    void entityDefaultPolicyWinsOverResourcePolicy() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceCascade(RESOURCE, true);
        admin.setEntityCascade(USER, "_default_", false);

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(admin.getEntityCascade(USER, "_default_")).contains(false);
        assertThat(available(ORG, "rpm")).isEqualTo(10);
    }

    @Test
    void entityResourcePolicyWinsOverEntityDefaultAndResourcePolicy() {
        createParent(ORG);
        createChild(USER, ORG, false);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceDefaults(OTHER_RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceCascade(RESOURCE, false);
        admin.setResourceCascade(OTHER_RESOURCE, false);
        admin.setEntityCascade(USER, "_default_", false);
        admin.setEntityCascade(USER, RESOURCE, true);

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        limiter.acquire(USER, OTHER_RESOURCE, consume("rpm", 1));

        assertThat(admin.getEntityCascade(USER, RESOURCE)).contains(true);
        assertThat(available(ORG, RESOURCE, "rpm")).isEqualTo(9);
        assertThat(available(ORG, OTHER_RESOURCE, "rpm")).isEqualTo(10);
    }

    @Test
    void entityResourcePolicyOffWinsOverEntityDefaultOn() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setEntityCascade(USER, "_default_", true);
        admin.setEntityCascade(USER, RESOURCE, false);

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(available(ORG, "rpm")).isEqualTo(10);
    }

    @Test
    void clearingPoliciesReturnsToInheriting() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceCascade(RESOURCE, false);
        admin.setEntityCascade(USER, "_default_", true);
        admin.setEntityCascade(USER, RESOURCE, false);

        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(available(ORG, "rpm")).as("entity+resource off").isEqualTo(10);

        admin.clearEntityCascade(USER, RESOURCE);
        assertThat(admin.getEntityCascade(USER, RESOURCE)).isEmpty();
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(available(ORG, "rpm")).as("entity default on").isEqualTo(9);

        admin.clearEntityCascade(USER, "_default_");
        assertThat(admin.getEntityCascade(USER, "_default_")).isEmpty();
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(available(ORG, "rpm")).as("resource off").isEqualTo(9);

        admin.clearResourceCascade(RESOURCE);
        assertThat(admin.getResourceCascade(RESOURCE)).isEmpty();
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(available(ORG, "rpm")).as("creation flag on").isEqualTo(8);
    }

    // ---- bypassed entities in a hierarchy

    @Test
    void bypassedChildStillDebitsAndIsRejectedByItsParent() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 2)));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setEntityDisabled(USER, RESOURCE, DisabledMode.BYPASS);

        Lease first = limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        Lease second = limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(first.bypassed()).isTrue();
        assertThat(second.bypassed()).isTrue();
        assertThat(available(USER, "rpm")).as("a bypassed child's balance is untouched").isEqualTo(1);
        assertThat(available(ORG, "rpm")).isZero();

        RateLimitExceededException e = catchThrowableOfType(
                () -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)), RateLimitExceededException.class);
        assertThat(e).isNotNull();
        assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly(ORG);
        assertThat(entitiesOf(e.statuses())).containsExactly(USER, ORG);
    }

    @Test
    void bypassedParentLetsTheChildSkipTheOrganisationCap() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        limiter.acquire(ORG, RESOURCE, consume("rpm", 1));
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);

        admin.setEntityDisabled(ORG, RESOURCE, DisabledMode.BYPASS);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(lease.bypassed()).as("the child itself is enforced").isFalse();
        assertThat(available(USER, "rpm")).isEqualTo(8);
        assertThat(available(ORG, "rpm")).isZero();
    }

    @Test
    void bypassedParentDoesNotRefuseACostAboveItsCapacity() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setEntityDisabled(ORG, RESOURCE, DisabledMode.BYPASS);

        // the parent checks nothing while bypassed (SPEC §3.8: admit, debit nothing), so its capacity cannot refuse
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 3));

        assertThat(lease.bypassed()).isFalse();
        assertThat(available(USER, "rpm")).isEqualTo(7);
        assertThat(available(ORG, "rpm")).isEqualTo(1);
    }

    @Test
    void disabledChildRaisesAndDebitsNeitherEntity() {
        cascadingPair(1_000, 1_000);
        admin.setEntityDisabled(USER, RESOURCE, DisabledMode.DISABLED);

        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("tpm", 100)))
                .isInstanceOf(ResourceDisabledException.class);

        admin.clearEntityDisabled(USER, RESOURCE);
        assertThat(available(USER, "tpm")).isEqualTo(1_000);
        assertThat(available(ORG, "tpm")).isEqualTo(1_000);
    }

    // ---- setParent

    @Test
    void setParentMovesFutureDebitsAndLeavesPastDebitsOnTheOldParent() {
        createParent(ORG);
        createParent(ORG2);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));
        limiter.acquire(USER, RESOURCE, consume("tpm", 100));

        Entity moved = admin.setParent(USER, ORG2);
        limiter.acquire(USER, RESOURCE, consume("tpm", 200));

        assertThat(moved.parentId()).isEqualTo(ORG2);
        assertThat(moved.cascade()).isTrue();
        assertThat(admin.getEntity(USER)).get().extracting(Entity::parentId).isEqualTo(ORG2);
        assertThat(available(ORG, "tpm")).as("past debits stay").isEqualTo(900);
        assertThat(available(ORG2, "tpm")).isEqualTo(800);
        assertThat(available(USER, "tpm")).isEqualTo(700);
        assertThat(admin.children(ORG)).isEmpty();
        assertThat(admin.children(ORG2)).extracting(Entity::id).containsExactly(USER);
    }

    @Test
    void setParentMakesTheNewParentTheOneThatRejects() {
        createParent(ORG);
        createParent(ORG2);
        createChild(USER, ORG, true);
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 100)));
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setLimits(ORG2, RESOURCE, List.of(Limit.perMinute("rpm", 50)));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);

        admin.setParent(USER, ORG2);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(entitiesOf(lease.statuses())).containsExactly(USER, ORG2);
        assertThat(available(ORG2, "rpm")).isEqualTo(49);
    }

    @Test
    void leaseOpenedBeforeTheMoveAdjustsAndRollsBackOnTheOldParent() {
        createParent(ORG);
        createParent(ORG2);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("tpm", 1_000)));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 100));

        admin.setParent(USER, ORG2);
        lease.adjust("tpm", 50);

        assertThat(available(ORG, "tpm")).isEqualTo(850);
        assertThat(available(ORG2, "tpm")).isEqualTo(1_000);
        assertThat(available(USER, "tpm")).isEqualTo(850);

        lease.rollback();

        assertThat(available(ORG, "tpm")).isEqualTo(1_000);
        assertThat(available(ORG2, "tpm")).isEqualTo(1_000);
        assertThat(available(USER, "tpm")).isEqualTo(1_000);
    }

    @Test
    void setParentNullMakesARootThatNoLongerCascades() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));
        admin.setResourceCascade(RESOURCE, true);

        Entity root = admin.setParent(USER, null);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(root.parentId()).isNull();
        assertThat(admin.getEntity(USER)).get().satisfies(e -> assertThat(e.parent()).isEmpty());
        assertThat(admin.children(ORG)).isEmpty();
        assertThat(entitiesOf(lease.statuses())).containsExactly(USER);
        assertThat(available(ORG, "rpm")).isEqualTo(10);
    }

    @Test
    void rootCreatedWithoutCascadeMovedUnderAParentCascadesOnlyOnceAPolicySaysSo() {
        createParent(ORG);
        admin.createEntity(Entity.of(USER));
        admin.setResourceDefaults(RESOURCE, List.of(Limit.perMinute("rpm", 10)));

        admin.setParent(USER, ORG);
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(available(ORG, "rpm")).isEqualTo(10);

        admin.setEntityCascade(USER, RESOURCE, true);
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));
        assertThat(available(ORG, "rpm")).isEqualTo(9);
    }

    @Test
    void setParentRejectsSelfAsParentAndWritesNothing() {
        createParent(ORG);
        createChild(USER, ORG, true);

        assertThatThrownBy(() -> admin.setParent(USER, USER)).isInstanceOf(ValidationException.class);

        assertThat(admin.getEntity(USER)).get().extracting(Entity::parentId).isEqualTo(ORG);
        assertThat(admin.children(USER)).isEmpty();
        assertThat(admin.children(ORG)).extracting(Entity::id).containsExactly(USER);
    }

    @Test
    void setParentRejectsATwoEntityCycleAndWritesNothing() {
        createParent(ORG);
        createChild(USER, ORG, true);

        ValidationException e = catchThrowableOfType(() -> admin.setParent(ORG, USER), ValidationException.class);

        assertThat(e).isNotNull();
        assertThat(e.field()).isEqualTo("parentId");
        assertThat(e.value()).isEqualTo(USER);
        assertThat(admin.getEntity(ORG)).get().extracting(Entity::parentId).isNull();
        assertThat(admin.getEntity(USER)).get().extracting(Entity::parentId).isEqualTo(ORG);
        assertThat(admin.children(USER)).isEmpty();
    }

    @Test
    void setParentOfAnUnknownEntityRaisesEntityNotFound() {
        createParent(ORG);

        EntityNotFoundException e = catchThrowableOfType(() -> admin.setParent("ghost", ORG),
                EntityNotFoundException.class);

        assertThat(e).isNotNull();
        assertThat(e.entityId()).isEqualTo("ghost");
        assertThat(admin.getEntity("ghost")).isEmpty();
        assertThat(admin.children(ORG)).isEmpty();
    }

    @Test
    void setParentToAnUnknownParentRaisesEntityNotFoundAndWritesNothing() {
        createParent(ORG);
        createChild(USER, ORG, true);

        EntityNotFoundException e = catchThrowableOfType(() -> admin.setParent(USER, "ghost"),
                EntityNotFoundException.class);

        assertThat(e).isNotNull();
        assertThat(e.entityId()).isEqualTo("ghost");
        assertThat(admin.getEntity(USER)).get().extracting(Entity::parentId).isEqualTo(ORG);
        assertThat(admin.getEntity("ghost")).isEmpty();
        assertThat(admin.children("ghost")).isEmpty();
    }

    // ---- entities and children

    @Test
    void createEntityWithAnUnknownParentFailsAndCreatesNothing() {
        assertThatThrownBy(() -> admin.createEntity(new Entity(USER, null, "ghost", true)))
                .isInstanceOf(EntityNotFoundException.class);

        assertThat(admin.getEntity(USER)).isEmpty();
        assertThat(admin.getEntity("ghost")).isEmpty();
        assertThat(admin.children("ghost")).isEmpty();
    }

    @Test
    void createdChildKeepsItsFields() {
        createParent(ORG);
        admin.createEntity(new Entity(USER, "Web Application Key", ORG, true));

        Optional<Entity> stored = admin.getEntity(USER);

        assertThat(stored).contains(new Entity(USER, "Web Application Key", ORG, true));
    }

    @Test
    void childrenListsTheDirectChildrenOrderedById() {
        createParent(ORG);
        createParent(ORG2);
        createChild("key-xyz", ORG, true);
        createChild("key-abc", ORG, false);
        createChild(USER2, ORG2, true);

        assertThat(admin.children(ORG)).extracting(Entity::id).containsExactly("key-abc", "key-xyz");
        assertThat(admin.children(ORG2)).extracting(Entity::id).containsExactly(USER2);
        assertThat(admin.children("key-xyz")).isEmpty();
        assertThat(admin.children("nobody")).isEmpty();
    }

    @Test
    void deleteEntityRefusesWhileChildrenExist() {
        createParent(ORG);
        createChild(USER, ORG, true);

        assertThatThrownBy(() -> admin.deleteEntity(ORG)).isInstanceOf(ValidationException.class);
        assertThat(admin.getEntity(ORG)).isPresent();
        assertThat(admin.children(ORG)).extracting(Entity::id).containsExactly(USER);

        admin.setParent(USER, null);
        admin.deleteEntity(ORG);
        assertThat(admin.getEntity(ORG)).isEmpty();
        assertThat(admin.getEntity(USER)).isPresent();
    }

    // ---- leases on cascaded calls

    @Test
    void adjustOnACascadedLeaseAffectsBothBucketsOnce() {
        cascadingPair(1_000, 10_000);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 500));

        lease.adjust("tpm", -180);
        assertThat(available(USER, "tpm")).isEqualTo(680);
        assertThat(available(ORG, "tpm")).isEqualTo(9_680);

        lease.adjust("tpm", 300);
        assertThat(available(USER, "tpm")).isEqualTo(380);
        assertThat(available(ORG, "tpm")).isEqualTo(9_380);
    }

    @Test
    void adjustOnACascadedLeaseMayPushBothIntoDebt() {
        cascadingPair(1_000, 1_200);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 1_000));

        lease.adjust("tpm", 500);

        assertThat(available(USER, "tpm")).isEqualTo(-500);
        assertThat(available(ORG, "tpm")).isEqualTo(-300);
    }

    @Test
    void rollbackOfACascadedLeaseRestoresBothBucketsOnce() {
        cascadingPair(1_000, 10_000);
        Lease other = limiter.acquire(USER, RESOURCE, consume("tpm", 100));
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 500));
        lease.adjust("tpm", 200);

        lease.rollback();

        assertThat(available(USER, "tpm")).isEqualTo(900);
        assertThat(available(ORG, "tpm")).isEqualTo(9_900);
        assertThatThrownBy(lease::rollback).isInstanceOf(LeaseClosedException.class);
        assertThatThrownBy(() -> lease.adjust("tpm", 1)).isInstanceOf(LeaseClosedException.class);
        lease.close();
        assertThat(available(USER, "tpm")).isEqualTo(900);
        assertThat(available(ORG, "tpm")).isEqualTo(9_900);
        other.close();
    }

    @Test
    void closedCascadedLeaseKeepsWhatItTookAndRefusesFurtherEffects() {
        cascadingPair(1_000, 10_000);
        Lease lease = limiter.acquire(USER, RESOURCE, consume("tpm", 500));

        lease.close();

        assertThatThrownBy(lease::rollback).isInstanceOf(LeaseClosedException.class);
        assertThatThrownBy(() -> lease.adjust("tpm", -500)).isInstanceOf(LeaseClosedException.class);
        assertThat(available(USER, "tpm")).isEqualTo(500);
        assertThat(available(ORG, "tpm")).isEqualTo(9_500);
    }

    @Test
    void callRollsBackBothBucketsWhenTheCallableThrows() {
        cascadingPair(1_000, 10_000);

        assertThatThrownBy(() -> limiter.call(AcquireRequest.of(USER, RESOURCE).consume("tpm", 400), () -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(available(USER, "tpm")).isEqualTo(1_000);
        assertThat(available(ORG, "tpm")).isEqualTo(10_000);
    }

    @Test
    void refillAfterACascadeRestoresBothBuckets() {
        createParent(ORG);
        createChild(USER, ORG, true);
        admin.setLimits(ORG, RESOURCE, List.of(Limit.perMinute("rpm", 1)));
        admin.setLimits(USER, RESOURCE, List.of(Limit.perMinute("rpm", 60)));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        clock.advance(Duration.ofSeconds(59));
        assertThatThrownBy(() -> limiter.acquire(USER, RESOURCE, consume("rpm", 1)))
                .isInstanceOf(RateLimitExceededException.class);
        clock.advance(Duration.ofSeconds(1));
        limiter.acquire(USER, RESOURCE, consume("rpm", 1));

        assertThat(available(ORG, "rpm")).isZero();
        assertThat(available(USER, "rpm")).isEqualTo(59);
    }
}
