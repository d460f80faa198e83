package dev.zaelimiter.internal.algorithm;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state a store refuses with when only a contested estimate (one that counts what other processes are expected
 * to take meanwhile) refuses a call. The other processes are imagined, so the state reported must not promise their
 * takes: it is the plain estimate, except that each dripping hard limit the contested estimate cannot cover holds
 * just so little that the call passes when the process asks the store again ({@code askAgainAt}), or earlier where
 * the contested balance says so. Its retry-after is then positive and never later than {@code askAgainAt}, so that a
 * waiter neither spins nor gives up on a call the store would serve.
 */
public final class ContestedRefusal {

    private ContestedRefusal() {
    }

    /**
     * The state to decide and report with at {@code plain.lastRefillMillis()}: the same as {@code plain} where
     * {@code plain} refuses the call or {@code contested} admits it.
     *
     * @param plain      what this process knows of the bucket, refilled to now
     * @param contested  {@code plain} less what other processes are expected to take
     * @param askAgainAt when this process stops trusting what it knows and asks the store again
     */
    public static BucketState state(List<Limit> limits, Map<String, Long> amountsMilli, BucketState plain,
            BucketState contested, long askAgainAt) {
        if (!plain.admits(limits, amountsMilli) || contested.admits(limits, amountsMilli)) {
            return plain;
        }
        long now = plain.lastRefillMillis();
        Map<String, LimitState> states = new HashMap<>(plain.limits());
        for (Limit limit : limits) {
            long amount = amountsMilli.getOrDefault(limit.name(), 0L);
            LimitState own = states.get(limit.name());
            long shared = contested.balanceMilli(limit.name());
            Limits.Parameters p = Limits.parametersAt(limit, now);
            if (own == null || !BucketState.refuses(limit, amount, shared, false) || !p.drips()) {
                continue;
            }
            long refilledUntilAsked = BucketMath.refill(0, p.capacityMilli(), p.refillAmountMilli(),
                    p.refillPeriodMillis(), now, askAgainAt);
            if (refilledUntilAsked > 0) {
                long balance = Math.max(shared, Math.min(own.balanceMilli(), amount - refilledUntilAsked));
                states.put(limit.name(), new LimitState(balance, own.consumedMilli(), own.windowStartMillis(),
                        own.holders()));
            }
        }
        return new BucketState(now, states);
    }
}
