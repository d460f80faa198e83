package dev.zaelimiter.store;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import static org.assertj.core.api.Assertions.assertThat;

import dev.zaelimiter.Limit;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks a retry-after against the only thing that decides admission: the stored state refilled to an instant. It
 * shares nothing with {@link BucketState#retryAfterMillis} but {@link BucketState#refilled}.
 *
 * <p>Windows are whole minutes, and within a minute the parameters do not change, so a balance refilled from the
 * stored state only grows within it. Hence a request passes nowhere in {@code [now, t)} exactly when it does not
 * pass at {@code t - 1} nor at the last millisecond of any minute that ends before {@code t}. That check is exact; a
 * scan every {@code stepMillis} adds an independent look.
 */
final class RetryAfterOracle {

    private static final long MINUTE = 60_000;

    /** The limits of the answers that were the bound of the walk (a time to ask again) rather than an admission. */
    static final Set<String> bounded = ConcurrentHashMap.newKeySet();

    /** The end of the last segment the walk may examine from {@code now}: where it stops when nothing passes. */
    static long walkLimit(Limit limit, long now) {
        long t = now;
        for (int i = 0; i < BucketState.MAX_SCHEDULE_STEPS && t != Limits.NEVER; i++) {
            t = Limits.nextChangeAfter(limit, t);
        }
        return t;
    }

    private RetryAfterOracle() {
    }

    static boolean passes(BucketState stored, Limit limit, long at, long needMilli) {
        return stored.refilled(List.of(limit), at).covers(limit.name(), Map.of(limit.name(), needMilli));
    }

    /**
     * Asserts that the retry-after reported at {@code now} for a bucket the store holds as {@code stored} is the
     * first instant at which the request passes, and returns it (milliseconds after {@code now}). When nothing
     * passes within the segments the walk examines, the answer must be the end of the last of them (counted in
     * {@link #bounded}), and nothing may pass before it either.
     */
    static long assertExact(BucketState stored, Limit limit, long now, long needMilli, long stepMillis) {
        BucketState seen = stored.refilled(List.of(limit), now);
        long wait = seen.retryAfterMillis(limit, needMilli);
        String what = String.format("%s, stored %s, now %d, need %d: retry-after %d", limit, stored, now, needMilli,
                wait);
        if (passes(stored, limit, now, needMilli)) {
            assertThat(wait).as(what).isZero();
            return 0;
        }
        assertThat(wait).as(what).isPositive().isLessThan(BucketMath.NEVER);
        long at = seen.lastRefillMillis() + wait;
        if (at == walkLimit(limit, seen.lastRefillMillis()) && !passes(stored, limit, at, needMilli)) {
            bounded.add(limit.name());
        } else {
            assertThat(passes(stored, limit, at, needMilli)).as("passes at the retry-after; " + what).isTrue();
        }
        assertThat(passes(stored, limit, at - 1, needMilli)).as("not a millisecond before; " + what).isFalse();
        for (long end = Math.floorDiv(now, MINUTE) * MINUTE + MINUTE - 1; end < at; end += MINUTE) {
            assertThat(passes(stored, limit, end, needMilli)).as("not at %d; %s", end, what).isFalse();
        }
        if (stepMillis > 0) {
            for (long t = now; t < at; t += stepMillis) {
                assertThat(passes(stored, limit, t, needMilli)).as("not at %d; %s", t, what).isFalse();
            }
        }
        return wait;
    }
}
