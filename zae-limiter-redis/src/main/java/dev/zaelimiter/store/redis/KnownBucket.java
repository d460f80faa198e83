package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A bucket as this process last saw it: the token of its last write ("" for none), its horizon and state, the
 * names of its limits that were concurrency limits when it was written, the instant of the decision that learned
 * it, and the stamp of the limits it was written under with the deadline until which the script may
 * decide from it ({@link ServerDecision}).
 */
record KnownBucket(String token, long endsAfter, BucketState state, Set<String> slotLimits, long learnedAt,
        String stamp, long deadline) {

    /**
     * How long a refusal decided on a bucket as this process last saw it stands without a round trip: other
     * processes can only have taken tokens since (or, rarely, given some back), so it errs only towards refusing.
     */
    static final long LOCAL_REFUSAL_MILLIS = 1_000;

    static final KnownBucket ABSENT = new KnownBucket("", 0, null, Set.of(), Long.MIN_VALUE, "", 0);

    KnownBucket learned(long at) {
        return new KnownBucket(token, endsAfter, state, slotLimits, at, stamp, deadline);
    }

    /** The bucket as held here (one whose life ended reads as new), refilled to {@code now} for {@code debit}. */
    BucketState refilled(BucketDebit debit, long now) {
        if (state == null || endsAfter <= now && BucketLife.ended(endsAfter,
                takenAs(debit.kept()).refilled(debit.kept(), now), debit.kept(), now)) {
            return BucketState.fresh(debit.limits(), now);
        }
        return takenAs(debit.limits()).refilled(debit.limits(), now);
    }

    /**
     * The state as {@code limits} take it: a concurrency limit's free slots are no balance, so a limit that was
     * one when the bucket was written and is of another kind in {@code limits} is full (at the capacity in force
     * once refilled), its consumption kept, as in the other stores.
     */
    BucketState takenAs(List<Limit> limits) {
        if (slotLimits.isEmpty()) {
            return state;
        }
        Map<String, LimitState> states = null;
        for (Limit limit : limits) {
            LimitState old = state.limits().get(limit.name());
            if (old != null && !limit.isConcurrency() && slotLimits.contains(limit.name())) {
                states = states == null ? new HashMap<>(state.limits()) : states;
                states.put(limit.name(), new LimitState(Long.MAX_VALUE, old.consumedMilli()));
            }
        }
        return states == null ? state : new BucketState(state.lastRefillMillis(), states);
    }

    /**
     * Whether a refusal made on this state may stand without asking Redis: learned (written, confirmed, or found
     * absent) less than a second ago, and not found with a key that goes too soon for the limits in force.
     */
    boolean recent(long now) {
        return learnedAt != Long.MIN_VALUE && now >= learnedAt && now - learnedAt < LOCAL_REFUSAL_MILLIS;
    }
}
