package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketState;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** A contended bucket's share of the refill decides a local refusal; the refusal reports the full estimate. */
class RedisContendedRefusalTest {

    private static final long T0 = 1_000_000;
    private static final Limit TPM = Limit.perMinute("tpm", 100_000);
    private static final List<Limit> LIMITS = List.of(TPM);

    /** The bucket drained at {@code T0}, learned then, and the call asking {@code tokens} of it. */
    private static BucketState[] contested(long tokens, long now) {
        BucketDebit debit = new BucketDebit(new BucketKey("entity", "resource"), LIMITS,
                Map.of("tpm", tokens * 1_000), false, false, null, LIMITS);
        BucketState drained = BucketState.fresh(LIMITS, T0).debited(LIMITS, Map.of("tpm", 100_000_000L), false);
        KnownBucket known = new KnownBucket("token", Long.MAX_VALUE, drained, Set.of(), T0, "stamp", 0);
        return Contention.contested(List.of(debit), new KnownBucket[] {known}, now);
    }

    @Test
    void aRefusalOnTheShareAloneWaitsNoLongerThanUntilRedisIsAskedAgain() {
        BucketState refusal = contested(1_500, T0 + 900)[0];

        assertThat(refusal.balanceMilli("tpm")).as("refused: a fifth of the 1,500 tokens refilled is 300")
                .isLessThan(1_500_000L);
        assertThat(refusal.retryAfterMillis(TPM, 1_500_000L)).as("until the state is 1 s old, not 720 ms")
                .isPositive().isLessThanOrEqualTo(100);
        assertThat(refusal.balanceMilli("tpm")).as("the full 1,500 less at most what refills in 100 ms")
                .isGreaterThanOrEqualTo(1_500_000L - 170_000L);
    }

    @Test
    void aCallTheFullEstimateRefusesReportsTheFullEstimate() {
        BucketState refusal = contested(2_000, T0 + 900)[0];

        assertThat(refusal.balanceMilli("tpm")).isEqualTo(1_500_000L);
        assertThat(refusal.retryAfterMillis(TPM, 2_000_000L)).isEqualTo(300);
    }
}
