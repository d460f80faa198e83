package dev.zaelimiter.store;

import dev.zaelimiter.Limit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BucketLifeTest {

    private static final long HOUR = 3_600_000L;
    private static final long DAY = 24 * HOUR;

    @Test
    void aLargeDailyLimitFillsInADayWhateverTheSizeOfItsArithmetic() {
        // 150M tokens a day: capacity (milli) times period reads negative in 64 bits, yet it fills in a day
        assertThat(BucketLife.idleHorizon(List.of(Limit.perDay("tpd", 150_000_000)), 0))
                .isEqualTo(2 * DAY + HOUR);
        assertThat(BucketLife.idleHorizon(List.of(Limit.perDay("tpd", 4_000_000_000_000L)), 0))
                .as("a product beyond 64 bits").isEqualTo(2 * DAY + HOUR);
    }

    @Test
    void aSlowDripOfALargeCapacityIsCappedAtTenYears() {
        Limit slow = Limit.custom("slow", 4_000_000_000_000L, 1, Duration.ofDays(365));
        assertThat(BucketLife.idleHorizon(List.of(slow), 0)).isEqualTo(10L * 366 * DAY);
    }

    @Test
    void anOrdinaryLimitKeepsTwoFillsPlusAnHour() {
        assertThat(BucketLife.idleHorizon(List.of(Limit.perMinute("rpm", 100)), 0)).isEqualTo(2 * 60_000 + HOUR);
        assertThat(BucketLife.idleHorizon(List.of(Limit.perSecond("rps", 10)), 0)).isEqualTo(HOUR + 2_000);
    }
}
