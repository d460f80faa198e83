package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.DeclarationPlan.Change;
import dev.zaelimiter.autoconfigure.DeclarationPlan.Kind;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.NestedExceptionUtils;

import java.time.Clock;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** Declarations as a plan: apply, prune and verify against a store that outlives each application context. */
@ExtendWith(OutputCaptureExtension.class)
class DeclarationPlanTests {

    private final MutableClock clock = MutableClock.start();
    private final InMemoryStore store = new InMemoryStore();
    private final RateLimiter admin = RateLimiter.builder().store(store).clock(clock).actor(() -> "operator")
            .build();

    private ApplicationContextRunner runner(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withBean(Clock.class, () -> clock)
                .withBean(LimiterStore.class, () -> store)
                .withPropertyValues(properties);
    }

    private static final String[] FIRST = {
            "zae.limiter.resources.gpt-4.limits.rpm.capacity=100",
            "zae.limiter.resources.batch.limits.rpm.capacity=10",
            "zae.limiter.resources.batch.disabled=bypass",
            "zae.limiter.entities.org-1.name=Acme"};

    @Test
    void applyWritesWhatIsAddedOrChangedAndLogsThePlan(CapturedOutput output) {
        runner(FIRST).run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("zae-limiter declarations (apply): added 4, changed 0, removed 0, unchanged 0");

        runner("zae.limiter.resources.gpt-4.limits.rpm.capacity=200",
                "zae.limiter.resources.batch.limits.rpm.capacity=10",
                "zae.limiter.entities.org-1.name=Acme").run(context -> {
                    assertThat(context).hasNotFailed();
                    DeclarationPlan plan = context.getBean(LimitDeclarations.class)
                            .plan(context.getBean(RateLimiter.class).admin());
                    assertThat(plan.summary()).as("applied: nothing left to do, batch's bypass is not pruned")
                            .isEqualTo("added 0, changed 0, removed 1, unchanged 3");
                });
        assertThat(output).as("apply does not look for removals").contains("added 0, changed 1, removed 0, unchanged 2")
                .contains("~ resource gpt-4 limits: [" + Limit.perMinute("rpm", 100) + "] -> ["
                        + Limit.perMinute("rpm", 200) + "]");
        assertThat(admin.admin().getResourceDisabled("batch")).as("apply removes nothing").contains(DisabledMode.BYPASS);
        assertThat(admin.admin().audit(AuditQuery.all()).events()).extracting(AuditEvent::actor, AuditEvent::action)
                .as("only real changes are audited").containsExactly(tuple("declarations", "set-limits"),
                        tuple("declarations", "create-entity"), tuple("declarations", "set-disabled"),
                        tuple("declarations", "set-limits"), tuple("declarations", "set-limits"));
    }

    @Test
    void pruneRemovesWhatEarlierDeclarationsWroteButNeverWhatTheAdminApiWrote() {
        runner(FIRST).run(context -> assertThat(context).hasNotFailed());
        admin.admin().setResourceDefaults("search", List.of(Limit.perSecond("rps", 5)));       // by an operator
        admin.admin().setResourceDefaults("batch", List.of(Limit.perMinute("rpm", 20)));       // taken over

        runner("zae.limiter.declarations.mode=prune",
                "zae.limiter.resources.gpt-4.limits.rpm.capacity=100").run(context -> {
                    assertThat(context).hasNotFailed();
                    DeclarationPlan plan = context.getBean(LimitDeclarations.class)
                            .plan(context.getBean(RateLimiter.class).admin());
                    assertThat(plan.drift()).isEmpty();
                });
        assertThat(admin.admin().getResourceDefaults("search")).containsExactly(Limit.perSecond("rps", 5));
        assertThat(admin.admin().getResourceDefaults("batch")).containsExactly(Limit.perMinute("rpm", 20));
        assertThat(admin.admin().getResourceDisabled("batch")).isEmpty();
        assertThat(admin.admin().getEntity("org-1")).isEmpty();
        assertThat(admin.admin().getResourceDefaults("gpt-4")).containsExactly(Limit.perMinute("rpm", 100));
    }

    @Test
    void pruneKeepsAnUndeclaredEntityWhoseLimitsAnOperatorSet(CapturedOutput output) {
        runner(FIRST).run(context -> assertThat(context).hasNotFailed());
        admin.admin().setLimits("org-1", "gpt-4", List.of(Limit.perMinute("rpm", 7)));          // by an operator

        runner("zae.limiter.declarations.mode=prune",
                "zae.limiter.resources.gpt-4.limits.rpm.capacity=100").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LimitDeclarations.class).plan(context.getBean(RateLimiter.class)
                            .admin()).warnings()).containsExactly("entity org-1 is no longer declared but has"
                            + " settings written through the admin API since; it is kept with them");
                });
        assertThat(admin.admin().getEntity("org-1")).isPresent();
        assertThat(admin.admin().getLimits("org-1", "gpt-4")).containsExactly(Limit.perMinute("rpm", 7));
        assertThat(output).contains("WARN").contains("entity org-1 is no longer declared");

        admin.admin().deleteLimits("org-1", "gpt-4");
        runner("zae.limiter.declarations.mode=prune",
                "zae.limiter.resources.gpt-4.limits.rpm.capacity=100").run(context -> assertThat(context)
                        .hasNotFailed());
        assertThat(admin.admin().getEntity("org-1")).as("nothing of the operator's is left").isEmpty();
    }

    @Test
    void twoApplicationsSharingATableDoNotPruneEachOther() {
        runner("spring.application.name=billing", "zae.limiter.resources.invoices.limits.rpm.capacity=10")
                .run(context -> assertThat(context).hasNotFailed());
        runner("spring.application.name=search", "zae.limiter.declarations.mode=prune",
                "zae.limiter.resources.query.limits.rps.capacity=5").run(context -> assertThat(context)
                        .hasNotFailed());
        assertThat(admin.admin().getResourceDefaults("invoices")).as("billing's limits survive search's prune")
                .containsExactly(Limit.perMinute("rpm", 10));
        assertThat(admin.admin().audit(AuditQuery.all()).events()).extracting(AuditEvent::actor)
                .containsExactlyInAnyOrder("declarations:billing", "declarations:search");

        runner("spring.application.name=billing", "zae.limiter.declarations.mode=prune",
                "zae.limiter.resources.invoices2.limits.rpm.capacity=10").run(context -> assertThat(context)
                        .hasNotFailed());
        assertThat(admin.admin().getResourceDefaults("invoices")).as("billing prunes its own").isEmpty();
        assertThat(admin.admin().getResourceDefaults("query")).containsExactly(Limit.perMinute("rps", 5));
    }

    @Test
    void verifyWritesNothingAndFailsOrWarnsOnDrift(CapturedOutput output) {
        admin.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 50)));
        runner("zae.limiter.declarations.mode=verify", "zae.limiter.resources.gpt-4.limits.rpm.capacity=100")
                .run(context -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                        .isInstanceOf(InvalidDeclarationException.class)
                        .hasMessageContaining("zae.limiter.declarations.mode")
                        .hasMessageContaining("added 0, changed 1, removed 0, unchanged 0")
                        .hasMessageContaining("~ resource gpt-4 limits"));

        runner("zae.limiter.declarations.mode=verify", "zae.limiter.declarations.on-drift=warn",
                "zae.limiter.resources.gpt-4.limits.rpm.capacity=100").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LimitDeclarations.class).plan(context.getBean(RateLimiter.class)
                            .admin()).drift()).extracting(Change::kind).containsExactly(Kind.CHANGED);
                });
        assertThat(output).contains("WARN").contains("the store differs from the declarations");
        assertThat(admin.admin().getResourceDefaults("gpt-4")).containsExactly(Limit.perMinute("rpm", 50));

        admin.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 100)));
        runner("zae.limiter.declarations.mode=verify", "zae.limiter.resources.gpt-4.limits.rpm.capacity=100")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aCascadeToAParentWithoutLimitsIsReported(CapturedOutput output) {
        runner("zae.limiter.entities.org-1.name=Acme",
                "zae.limiter.entities.key-1.parent=org-1",
                "zae.limiter.entities.key-1.cascade=true",
                "zae.limiter.entities.key-1.resources.gpt-4.limits.rpm.capacity=5",
                "zae.limiter.entities.key-2.parent=org-1",
                "zae.limiter.entities.key-2.resources.gpt-4.limits.rpm.capacity=5",
                "zae.limiter.resources.search.limits.rps.capacity=5").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LimitDeclarations.class).plan(context.getBean(RateLimiter.class)
                            .admin()).warnings()).containsExactly("entity key-1 cascades to org-1 on gpt-4, but"
                            + " org-1 has no limits for gpt-4 at any level, so its calls are not debited to org-1");
                });
        assertThat(output).contains("WARN").contains("entity key-1 cascades to org-1 on gpt-4");
    }
}
