package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.NoLimitsConfiguredException;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.UnknownLimitException;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input raises a typed error that names what was wrong, and writes nothing. */
public abstract class ValidationContract extends StoreContractSupport {

    private void defaults() {
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10), Limit.perMinute("tpm", 100)));
    }

    private void assertUntouched() {
        assertThat(limiter.available("user-1", "api")).isEqualTo(Map.of("rpm", 10L, "tpm", 100L));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-user", "_user", "user#1", "user 1", "usér", "a/b"})
    void malformedEntityIdIsRejected(String entityId) {
        defaults();
        assertThatThrownBy(() -> limiter.acquire(entityId, "api", consume("rpm", 1)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("entityId");
                    assertThat(e.value()).isEqualTo(entityId);
                });
    }

    @Test
    void entityIdLengthIsBounded() {
        defaults();
        limiter.acquire("u".repeat(256), "api", consume("rpm", 1));
        assertThatThrownBy(() -> limiter.acquire("u".repeat(257), "api", consume("rpm", 1)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("256");
    }

    @Test
    void entityIdMayUseItsPunctuation() {
        defaults();
        limiter.acquire("0key:user.name_x-y@example", "api", consume("rpm", 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "_default_", "1api", "api#v1", "api v1", "/api"})
    void malformedResourceIsRejected(String resource) {
        admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
        assertThatThrownBy(() -> limiter.acquire("user-1", resource, consume("rpm", 1)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("resource"));
    }

    @Test
    void resourceMayContainSlashes() {
        admin.setSystemDefaults(List.of(Limit.perMinute("rpm", 10)));
        limiter.acquire("user-1", "openai/gpt-4", consume("rpm", 1));
    }

    @Test
    void malformedLimitNameInConsumeIsRejected() {
        defaults();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("r#pm", 1)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("r#pm");
        assertUntouched();
    }

    @Test
    void negativeAmountIsRejectedAndNothingIsWritten() {
        defaults();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rpm", 1, "tpm", -5)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("consume.tpm");
                    assertThat(e.value()).isEqualTo(-5L);
                });
        assertUntouched();
    }

    @Test
    void nullAmountIsRejected() {
        defaults();
        Map<String, Long> amounts = new HashMap<>();
        amounts.put("rpm", null);
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", amounts))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("consume.rpm"));
    }

    @Test
    void consumeOfAnUnknownLimitIsRejectedAndNothingIsWritten() {
        defaults();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rpm", 1, "rpd", 1)))
                .isInstanceOf(UnknownLimitException.class)
                .hasMessageContaining("rpd").hasMessageContaining("user-1").hasMessageContaining("api");
        assertUntouched();
    }

    @Test
    void costAboveCapacityIsUnsatisfiableNotRateLimited() {
        defaults();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rpm", 1, "tpm", 101)))
                .isInstanceOfSatisfying(UnsatisfiableRequestException.class, e -> {
                    assertThat(e.limitName()).isEqualTo("tpm");
                    assertThat(e.capacity()).isEqualTo(100);
                    assertThat(e.requested()).isEqualTo(101);
                })
                .isNotInstanceOf(RateLimitExceededException.class);
        assertUntouched();
        assertThatThrownBy(() -> limiter.checkAvailability("user-1", "api", consume("tpm", 101)))
                .isInstanceOf(UnsatisfiableRequestException.class);
    }

    @Test
    void costAboveTheCascadeParentsCapacityIsUnsatisfiableAndWritesNothing() {
        admin.createEntity("org-1");
        admin.createEntity(Entity.of("user-1").withParent("org-1").withCascade(true));
        admin.setLimits("user-1", "api", List.of(Limit.perMinute("tpm", 1000)));
        admin.setLimits("org-1", "api", List.of(Limit.perMinute("tpm", 500)));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("tpm", 600)))
                .isInstanceOfSatisfying(UnsatisfiableRequestException.class,
                        e -> assertThat(e.entityId()).isEqualTo("org-1"));
        assertThat(limiter.available("user-1", "api")).containsEntry("tpm", 1000L);
        assertThat(limiter.available("org-1", "api")).containsEntry("tpm", 500L);
    }

    @Test
    void noLimitsAtAnyLevelIsItsOwnError() {
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", consume("rpm", 1)))
                .isInstanceOfSatisfying(NoLimitsConfiguredException.class, e -> {
                    assertThat(e.entityId()).isEqualTo("user-1");
                    assertThat(e.resource()).isEqualTo("api");
                });
    }

    @Test
    void badLimitListsAreRejectedAndTheLevelIsKept() {
        defaults();
        List<Limit> duplicate = List.of(Limit.perMinute("rpm", 1), Limit.perHour("rpm", 5));
        assertThatThrownBy(() -> admin.setResourceDefaults("api", duplicate))
                .isInstanceOf(ValidationException.class).hasMessageContaining("rpm");
        assertThatThrownBy(() -> admin.setResourceDefaults("api", List.of()))
                .isInstanceOf(ValidationException.class);
        List<Limit> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> admin.setLimits("user-1", "api", withNull))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> admin.setLimits("user#1", "api", List.of(Limit.perMinute("rpm", 1))))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> admin.setResourceDefaults("_default_", List.of(Limit.perMinute("rpm", 1))))
                .isInstanceOf(ValidationException.class);
        assertThat(admin.getResourceDefaults("api")).hasSize(2);
        assertThat(admin.getLimits("user-1", "api")).isEmpty();
        assertUntouched();
    }

    @Test
    void perCallLimitsAreValidated() {
        defaults();
        AcquireRequest request = AcquireRequest.of("user-1", "api").consume("rpm", 1)
                .limits(List.of(Limit.perMinute("rpm", 1), Limit.perMinute("rpm", 2)));
        assertThatThrownBy(() -> limiter.acquire(request)).isInstanceOf(ValidationException.class);
        assertUntouched();
    }

    @Test
    void duplicateEntityIsRejectedAndTheFirstIsKept() {
        admin.createEntity(Entity.of("user-1").withName("first"));
        assertThatThrownBy(() -> admin.createEntity(Entity.of("user-1").withName("second")))
                .isInstanceOf(EntityExistsException.class).hasMessageContaining("user-1");
        assertThat(admin.getEntity("user-1")).get().extracting(Entity::name).isEqualTo("first");
    }
}
