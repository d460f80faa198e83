package dev.zaelimiter.store.memory;

import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.UsageCounts;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Queue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A counting bucket keeps its counts in {@code int}s: a count that would overflow sets the counts aside first, so
 * that the sum of what was set aside and what is held is always every decision counted.
 */
class CountingCellTest {

    private static final BucketKey KEY = new BucketKey("user-1", "api");
    private static final long NOW = 1_780_000_000_000L;

    private final Queue<PendingUsage> pending = new ArrayDeque<>();
    private final CountingCell cell = new CountingCell();

    private UsageCounts total() {
        UsageCounts sum = UsageCounts.ZERO;
        for (PendingUsage usage : pending) {
            assertThat(usage.key()).isEqualTo(KEY);
            assertThat(usage.limitName()).isEqualTo("rps");
            assertThat(usage.hourStart()).isEqualTo(Math.floorDiv(NOW, 3_600_000L) * 3_600_000L);
            sum = sum.plus(usage.counts());
        }
        UsageCounts held = cell.take();
        return held == null ? sum : sum.plus(held);
    }

    @Test
    void admittedAndOverdrawnCallsPastTheLargestIntAreSetAsideNotLost() {
        cell.count(KEY, NOW, "rps", true, 1000, false, true, pending);
        cell.overdrawn = Integer.MAX_VALUE;
        cell.count(KEY, NOW, "rps", true, 1000, false, true, pending);
        cell.admitted = Integer.MAX_VALUE;
        cell.count(KEY, NOW, "rps", true, 1000, false, false, pending);

        assertThat(pending).hasSize(2);
        assertThat(total()).isEqualTo(new UsageCounts(3000, Integer.MAX_VALUE + 2L, 0, Integer.MAX_VALUE + 1L, 0));
    }

    @Test
    void refusedCallsPastTheLargestIntAreSetAsideNotLost() {
        cell.count(KEY, NOW, "rps", false, 1000, false, false, pending);
        cell.refused = Integer.MAX_VALUE;
        cell.count(KEY, NOW, "rps", false, 1000, false, false, pending);

        assertThat(total()).isEqualTo(new UsageCounts(0, 0, Integer.MAX_VALUE + 1L, 0, 0));
    }

    @Test
    void anAmountThatWouldOverflowTheHeldOneSetsItAsideAndOneBeyondAnIntIsCountedAlone() {
        cell.count(KEY, NOW, "rps", true, Integer.MAX_VALUE - 10L, false, false, pending);
        cell.count(KEY, NOW, "rps", true, 11, false, false, pending);         // would overflow: set aside first
        cell.count(KEY, NOW, "rps", true, Long.MAX_VALUE / 2, false, false, pending);

        assertThat(pending).hasSize(2);
        assertThat(total()).isEqualTo(new UsageCounts(Integer.MAX_VALUE + 1L + Long.MAX_VALUE / 2, 3, 0, 0, 0));
    }

    @Test
    void consumedAndBypassedAmountsShareOneCounterWithoutMixing() {
        cell.count(KEY, NOW, "rps", true, 2000, false, false, pending);
        cell.count(KEY, NOW, "rps", true, 0, true, false, pending);           // no amount: no switch
        cell.count(KEY, NOW, "rps", true, 5000, true, false, pending);
        cell.count(KEY, NOW, "rps", false, 0, false, false, pending);
        cell.count(KEY, NOW, "rps", true, 3000, false, false, pending);

        assertThat(total()).isEqualTo(new UsageCounts(5000, 4, 1, 0, 5000));
    }
}
