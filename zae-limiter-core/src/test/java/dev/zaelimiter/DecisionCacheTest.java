package dev.zaelimiter;

import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.ForwardingStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limiter reuses what it derived from the configuration and from a call's amounts while they stay the same; a
 * change of either is seen by the very next call, in this process, as without the reuse.
 */
class DecisionCacheTest {

    private final MutableClock clock = MutableClock.start();
    private final InMemoryStore store = new InMemoryStore();
    private final RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
    private static final Map<String, Long> ONE = Map.of("rpm", 1L);

    @BeforeEach
    void warm() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
        limiter.acquire("user-1", "api", ONE).close();
        limiter.acquire("user-1", "api", ONE).close();
    }

    @Test
    void newResourceDefaultsApplyToTheNextCall() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100), Limit.perMinute("tpm", 5)));

        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L, "tpm", 6L)))
                .isInstanceOf(UnsatisfiableRequestException.class);
        try (Lease lease = limiter.acquire("user-1", "api", ONE)) {
            assertThat(lease.statuses()).extracting(LimitStatus::limitName).containsExactly("rpm", "tpm");
        }
    }

    @Test
    void anEntitysOwnLimitsApplyAtOnceAndItsDeletionRestoresTheDefaults() {
        limiter.admin().setLimits("user-1", "api", List.of(Limit.perMinute("rpm", 3)));
        assertThat(limiter.acquire("user-1", "api", ONE).statuses().get(0).capacity()).isEqualTo(3);
        assertThat(limiter.acquire("user-2", "api", ONE).statuses().get(0).capacity()).isEqualTo(100);

        limiter.admin().deleteLimits("user-1", "api");
        assertThat(limiter.acquire("user-1", "api", ONE).statuses().get(0).capacity()).isEqualTo(100);
    }

    @Test
    void aPauseAndADisabledResourceRefuseTheNextCall() {
        limiter.pause("api", Duration.ofSeconds(5));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", ONE)).isInstanceOf(ResourcePausedException.class);
        clock.advance(Duration.ofSeconds(5));
        limiter.acquire("user-1", "api", ONE).close();

        limiter.admin().setResourceDisabled("api", DisabledMode.DISABLED);
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", ONE)).isInstanceOf(ResourceDisabledException.class);
    }

    @Test
    void aNewParentIsDebitedFromTheNextCall() {
        limiter.admin().createEntity("org-1");
        limiter.admin().setLimits("org-1", "api", List.of(Limit.perMinute("rpm", 2)));
        limiter.admin().createEntity("user-1");
        limiter.admin().setParent("user-1", "org-1");
        limiter.admin().setEntityCascade("user-1", "api", true);

        limiter.acquire("user-1", "api", ONE).close();
        limiter.acquire("user-1", "api", ONE).close();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", ONE))
                .isInstanceOfSatisfying(RateLimitExceededException.class,
                        e -> assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly("org-1"));
    }

    @Test
    void whileNoConfigurationChangesTheStoreIsNotAskedForIt() {
        AtomicInteger loads = new AtomicInteger();
        RateLimiter limiter = RateLimiter.builder().store(countingLoads(loads)).clock(clock).build();
        limiter.acquire("user-1", "api", ONE).close();

        loads.set(0);
        for (int i = 0; i < 5; i++) {
            limiter.acquire("user-" + i, "api", ONE).close();
        }
        assertThat(loads).as("calls of entities that configure nothing, nothing changed").hasValue(0);

        limiter.admin().setSystemDefaults(List.of(Limit.perMinute("rps", 1)));
        limiter.acquire("user-1", "api", ONE).close();
        assertThat(loads).as("after a change anywhere").hasValue(1);
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 3)));
        assertThat(limiter.acquire("user-2", "api", ONE).statuses().get(0).capacity()).isEqualTo(3);

        limiter.admin().createEntity("user-9");
        loads.set(0);
        limiter.acquire("user-9", "api", ONE).close();
        limiter.acquire("user-9", "api", ONE).close();
        assertThat(loads).as("an entity with a record of its own").hasValue(2);

        limiter.admin().setLimits("user-7", "api", List.of(Limit.perMinute("rpm", 5)));
        limiter.admin().deleteLimits("user-7", "api");
        limiter.acquire("user-1", "api", ONE).close();
        limiter.acquire("user-7", "api", ONE).close();            // levels of its own once: loaded, resolved as shared
        loads.set(0);
        limiter.acquire("user-1", "api", ONE).close();
        assertThat(loads).as("the others, after a call of an entity whose own levels were emptied").hasValue(0);
    }

    @Test
    void aDeletedEntityIsResolvedAsSharedAgain() {
        AtomicInteger loads = new AtomicInteger();
        RateLimiter limiter = RateLimiter.builder().store(countingLoads(loads)).clock(clock).build();
        limiter.admin().createEntity("user-8");
        limiter.admin().setLimits("user-8", "api", List.of(Limit.perMinute("rpm", 5)));
        assertThat(limiter.acquire("user-8", "api", ONE).statuses().get(0).capacity()).isEqualTo(5);

        limiter.admin().deleteEntity("user-8");
        assertThat(limiter.acquire("user-8", "api", ONE).statuses().get(0).capacity()).isEqualTo(100);
        loads.set(0);
        limiter.acquire("user-8", "api", ONE).close();
        limiter.acquire("user-8", "api", ONE).close();
        assertThat(loads).as("an entity whose record and levels were deleted").hasValue(0);
    }

    private LimiterStore countingLoads(AtomicInteger loads) {
        return new ForwardingStore() {
            @Override
            protected LimiterStore delegate() {
                return store;
            }

            @Override
            public ConfigSnapshot loadConfig(String entityId, String resource) {
                loads.incrementAndGet();
                return store.loadConfig(entityId, resource);
            }

            @Override
            protected boolean forwardsConfigVersion() {
                return true;
            }
        };
    }

    @Test
    void aDecoratorThatChangesTheConfigurationIsAskedAtEveryCall() {
        AtomicBoolean killed = new AtomicBoolean();
        LimiterStore killSwitch = new ForwardingStore() {
            @Override
            protected LimiterStore delegate() {
                return store;
            }

            @Override
            public ConfigSnapshot loadConfig(String entityId, String resource) {
                ConfigSnapshot stored = store.loadConfig(entityId, resource);
                return killed.get() ? new ConfigSnapshot(stored.entity(), stored.entityResource(),
                        stored.entityDefault(), stored.resource().withDisabled(DisabledMode.DISABLED), stored.system())
                        : stored;
            }
        };
        RateLimiter limiter = RateLimiter.builder().store(killSwitch).clock(clock).build();
        limiter.acquire("user-1", "api", ONE).close();
        limiter.acquire("user-1", "api", ONE).close();

        killed.set(true);
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", ONE)).isInstanceOf(ResourceDisabledException.class);
        killed.set(false);
        limiter.acquire("user-1", "api", ONE).close();
    }

    @Test
    void aMapChangedBetweenCallsConsumesWhatItHoldsAtEachCall() {
        Map<String, Long> amounts = new HashMap<>(ONE);
        limiter.acquire("user-3", "api", amounts).close();
        amounts.put("rpm", 10L);
        limiter.acquire("user-3", "api", amounts).close();

        assertThat(limiter.available("user-3", "api")).containsEntry("rpm", 89L);
    }

    @Test
    void amountsThatDifferFromTheLastOnesAreValidatedAgain() {
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", -1L)))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("tpm", 1L)))
                .isInstanceOf(UnknownLimitException.class);
        assertThatThrownBy(() -> limiter.acquire("bad id!", "api", ONE)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> limiter.acquire("user-1", "bad resource!", ONE))
                .isInstanceOf(ValidationException.class);
        limiter.acquire("user-1", "api", ONE).close();
    }

    @Test
    void aRefusalCarriesNoStackTraceButItsFullMessage() {
        limiter.admin().setResourceDefaults("tight", List.of(Limit.perMinute("rpm", 1)));
        limiter.acquire("user-1", "tight", ONE).close();

        assertThatThrownBy(() -> limiter.acquire("user-1", "tight", ONE))
                .isInstanceOfSatisfying(RateLimitExceededException.class, e -> {
                    assertThat(e.getStackTrace()).isEmpty();
                    assertThat(e.getMessage()).isEqualTo("rate limit exceeded: user-1/tight/rpm (requested 1,"
                            + " available 0, retry after 60000 ms)");
                    assertThat(e.retryAfter()).isEqualTo(Duration.ofMinutes(1));
                });
        assertThat(new RateLimitExceededException(List.of()).getStackTrace()).isNotEmpty();
    }
}
