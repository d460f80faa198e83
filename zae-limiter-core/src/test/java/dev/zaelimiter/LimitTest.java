package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LimitTest {

    @Test
    void factoriesSetRateAndCapacity() {
        Limit rpm = Limit.perMinute("rpm", 100);
        assertThat(rpm.capacity()).isEqualTo(100);
        assertThat(rpm.refillAmount()).isEqualTo(100);
        assertThat(rpm.refillPeriod()).isEqualTo(Duration.ofMinutes(1));
        assertThat(Limit.perSecond("a", 1).refillPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(Limit.perHour("a", 1).refillPeriod()).isEqualTo(Duration.ofHours(1));
        assertThat(Limit.perDay("a", 1).refillPeriod()).isEqualTo(Duration.ofDays(1));
        Limit custom = Limit.custom("jobs", 5, 1, Duration.ofSeconds(30));
        assertThat(custom.capacity()).isEqualTo(5);
        assertThat(custom.refillAmount()).isEqualTo(1);
        assertThat(Limits.refillPeriodMillis(custom)).isEqualTo(30_000);
        assertThat(Limits.capacityMilli(custom)).isEqualTo(5_000);
    }

    @Test
    void burstChangesCapacityOnlyAndLimitsAreImmutable() {
        Limit base = Limit.perMinute("tpm", 1000);
        Limit burst = base.withBurst(5000);
        assertThat(burst.capacity()).isEqualTo(5000);
        assertThat(burst.refillAmount()).isEqualTo(1000);
        assertThat(base.capacity()).isEqualTo(1000);
        Limit soft = burst.soft();
        assertThat(soft.isSoft()).isTrue();
        assertThat(burst.isSoft()).isFalse();
        assertThat(soft.hard()).isEqualTo(burst);
        assertThat(soft.withBurst(10).isSoft()).isTrue();
    }

    @Test
    void equalityIsByValue() {
        assertThat(Limit.perMinute("rpm", 10)).isEqualTo(Limit.custom("rpm", 10, 10, Duration.ofSeconds(60)))
                .hasSameHashCodeAs(Limit.custom("rpm", 10, 10, Duration.ofSeconds(60)));
        assertThat(Limit.perMinute("rpm", 10)).isNotEqualTo(Limit.perMinute("rpm", 10).soft());
        assertThat(Limit.perMinute("rpm", 10).toString()).contains("rpm").contains("10");
    }

    @Test
    void nonPositiveValuesAreRejectedWithTheValue() {
        assertThatThrownBy(() -> Limit.perMinute("rpm", 0))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.value()).isEqualTo(0L);
                    assertThat(e.field()).contains("rpm").contains("capacity");
                });
        assertThatThrownBy(() -> Limit.perSecond("rps", -3)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("-3");
        assertThatThrownBy(() -> Limit.perMinute("rpm", 10).withBurst(0)).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Limit.custom("x", 10, 0, Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(ValidationException.class,
                        e -> assertThat(e.field()).contains("refillAmount"));
        assertThatThrownBy(() -> Limit.custom("x", 10, 1, Duration.ZERO)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("refill period");
        assertThatThrownBy(() -> Limit.custom("x", 10, 1, Duration.ofMillis(-5)))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> Limit.custom("x", 10, 1, Duration.ofNanos(999_999)))
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void capacityIsBoundedSoMilliTokensFitALong() {
        assertThat(Limits.capacityMilli(Limit.perDay("big", Limit.MAX_TOKENS))).isEqualTo(Limit.MAX_TOKENS * 1000);
        assertThatThrownBy(() -> Limit.perDay("big", Limit.MAX_TOKENS + 1)).isInstanceOf(ValidationException.class);
    }

    @Test
    void namesFollowTheRules() {
        Limit.perMinute("a", 1);
        Limit.perMinute("tpm_v2.beta-1", 1);
        Limit.perMinute("x".repeat(64), 1);
        for (String bad : new String[] {"", "1rpm", "_rpm", "r#m", "r/m", "r m", "x".repeat(65)}) {
            assertThatThrownBy(() -> Limit.perMinute(bad, 1)).as(bad)
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.value()).isEqualTo(bad));
        }
        assertThatThrownBy(() -> Limit.perMinute(null, 1)).isInstanceOf(ValidationException.class);
    }
}
