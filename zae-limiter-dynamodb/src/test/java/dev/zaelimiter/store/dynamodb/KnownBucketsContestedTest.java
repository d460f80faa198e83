package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketState;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A contended bucket's estimate decides a local refusal; the refusal reports no imaginary rival's take. */
class KnownBucketsContestedTest {

    private static final BucketKey KEY = new BucketKey("entity", "resource");
    private static final long T0 = 1_000_000;

    private static BucketDebit debit(List<Limit> limits, String name, long amountMilli) {
        return new BucketDebit(KEY, limits, Map.of(name, amountMilli), false, false, null, limits);
    }

    /** A bucket this process lost a race for at {@code T0} and learned again at {@code learnedAt}. */
    private static KnownBuckets contended(BucketDebit debit, Map<String, Long> takenAtT0, long learnedAt,
            Map<String, Long> takenSince) {
        KnownBuckets known = new KnownBuckets();
        List<Limit> limits = debit.limits();
        known.learnRefusal(debit, "s", BucketState.fresh(limits, T0).debited(limits, takenAtT0, false), T0, true);
        known.learn(KEY, "s", BucketState.fresh(limits, learnedAt).debited(limits, takenSince, false), learnedAt, 0);
        return known;
    }

    @Test
    void aRefusalOnRivalsAloneWaitsNoLongerThanUntilTheStoreIsAskedAgain() {
        Limit tpm = Limit.perMinute("tpm", 100_000);
        BucketDebit half = debit(List.of(tpm), "tpm", 50_000_000L);
        KnownBuckets known = contended(half, Map.of("tpm", 100_000_000L), T0 + 200, Map.of());
        known.reserve(half, "s", T0 + 200);

        BucketState refusal = known.localRefusal(half, "s", T0 + 300);

        assertThat(refusal).as("four rivals as greedy as the call in flight leave nothing").isNotNull();
        assertThat(refusal.retryAfterMillis(tpm, 50_000_000L)).as("until the state is 1 s old, not 120 s")
                .isPositive().isLessThanOrEqualTo(900);
        assertThat(refusal.balanceMilli("tpm")).as("the plain 50k less at most what refills in 0.9 s")
                .isBetween(50_000_000L - 1_500_000L, 49_999_999L);
    }

    @Test
    void aRefusalTheRivalsDoNotDecideIsThePlainEstimate() {
        Limit rps = Limit.perSecond("rps", 10);
        BucketDebit five = debit(List.of(rps), "rps", 5_000L);
        KnownBuckets known = contended(five, Map.of("rps", 10_000L), T0 + 1000, Map.of("rps", 8_000L));
        BucketState plain = known.estimate(five, "s", T0 + 1000);

        BucketState refusal = known.localRefusal(five, "s", T0 + 1000);

        assertThat(refusal).isEqualTo(plain);
        assertThat(refusal.retryAfterMillis(rps, 5_000L)).isEqualTo(300);
    }

    @Test
    void aRefusalOnRivalsAloneComesBackWithinTheTrustWindow() {
        Limit rps = Limit.perSecond("rps", 10);
        BucketDebit one = debit(List.of(rps), "rps", 1_000L);
        KnownBuckets known = contended(one, Map.of("rps", 10_000L), T0 + 1000, Map.of("rps", 8_000L));
        known.reserve(one, "s", T0 + 1000);

        BucketState refusal = known.localRefusal(one, "s", T0 + 1000);
        assertThat(refusal).isNotNull();
        long retryAfter = refusal.retryAfterMillis(rps, 1_000L);
        assertThat(retryAfter).isPositive().isLessThanOrEqualTo(1000);

        assertThat(known.localRefusal(one, "s", T0 + 1000 + retryAfter)).as("not refused again when it comes back")
                .isNull();
    }

    @Test
    void aRefusalTheProcesssOwnCallsAccountForIsNoRaceLostToAnotherProcess() {
        Limit rps = Limit.perSecond("rps", 50);
        List<Limit> limits = List.of(rps);
        BucketDebit one = debit(limits, "rps", 1_000L);
        KnownBuckets known = new KnownBuckets();
        BucketState oneLeft = BucketState.fresh(limits, T0).debited(limits, Map.of("rps", 49_000L), false);
        known.learn(KEY, "s", oneLeft, T0, 0);
        known.reserve(one, "s", T0);
        known.reserve(one, "s", T0);
        BucketState takenByTheOther = oneLeft.debited(limits, Map.of("rps", 1_000L), false);
        BucketState takenByAnotherProcess = oneLeft.debited(limits, Map.of("rps", 2_000L), false);

        assertThat(known.lostToAnother(one, "s", takenByTheOther)).isFalse();
        assertThat(known.lostToAnother(one, "s", takenByAnotherProcess)).isTrue();
        known.release(one, "s");
        assertThat(known.lostToAnother(one, "s", takenByTheOther)).as("the other call, answered, not yet learned")
                .isTrue();
    }
}
