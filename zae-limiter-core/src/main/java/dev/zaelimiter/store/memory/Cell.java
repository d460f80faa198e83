package dev.zaelimiter.store.memory;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

/**
 * One bucket. Guarded by its own monitor; {@code retired} once evicted, so that late arrivals retry. Holds its
 * state in pieces rather than as a {@link BucketState}, to keep a million buckets small: the instant, and the
 * state of its one limit (the common case) in plain fields, or in {@code states}: the {@link LimitState} of a
 * single limit with slot holders, or the map of several limits' states.
 */
class Cell {
    /** {@code states} when the one limit's state is in the plain fields. */
    static final Object INLINE = new Object();

    long lastRefillMillis;
    long balanceMilli;
    long consumedMilli;
    long windowStartMillis;
    /** {@code null} for a bucket never written, {@link #INLINE}, a {@link LimitState}, or a map of them. */
    Object states;
    List<Limit> limits;
    boolean retired;

    /** The stored state, or {@code null} for a bucket never written. */
    BucketState state() {
        Object held = states;
        if (held == null) {
            return null;
        }
        if (held == INLINE || held instanceof LimitState) {
            return new BucketState(lastRefillMillis, Map.of(limits.get(0).name(), single()));
        }
        @SuppressWarnings("unchecked")
        Map<String, LimitState> all = (Map<String, LimitState>) held;
        return new BucketState(lastRefillMillis, all);
    }

    /**
     * The stored state as {@code limits} take it, or {@code null} for a bucket never written: a concurrency
     * limit's free slots are no balance, so a limit that was one when the bucket was written and is of another
     * kind in {@code limits} is full (at the capacity in force once refilled), its consumption kept; as one that
     * becomes a concurrency limit starts with its slots free.
     */
    BucketState state(List<Limit> limits) {
        BucketState stored = state();
        if (stored == null) {
            return null;
        }
        Map<String, LimitState> kept = null;
        for (Limit limit : limits) {
            LimitState old = stored.limits().get(limit.name());
            if (old != null && !limit.isConcurrency() && wasConcurrency(limit.name())) {
                if (kept == null) {
                    kept = new HashMap<>(stored.limits());
                }
                kept.put(limit.name(), slotsAsFull(old));
            }
        }
        return kept == null ? stored : new BucketState(stored.lastRefillMillis(), kept);
    }

    /** The state of the one limit as {@code limit} takes it ({@link #state(List)}). */
    LimitState single(Limit limit) {
        LimitState old = single();
        return !limit.isConcurrency() && wasConcurrency(limit.name()) ? slotsAsFull(old) : old;
    }

    /** A state above every capacity, which a refill brings down to the capacity in force: full. */
    private static LimitState slotsAsFull(LimitState slots) {
        return new LimitState(Long.MAX_VALUE, slots.consumedMilli());
    }

    private boolean wasConcurrency(String name) {
        for (Limit written : limits) {
            if (written.isConcurrency() && written.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the bucket holds the state of one limit (or nothing yet). */
    boolean holdsOne() {
        return states == null || states == INLINE || states instanceof LimitState;
    }

    /** The state of the one limit, for a cell that {@linkplain #holdsOne holds one} and was written. */
    LimitState single() {
        return states == INLINE ? new LimitState(balanceMilli, consumedMilli, windowStartMillis)
                : (LimitState) states;
    }

    /** The balance of {@code limit} as written, for a bucket that was. */
    long balanceOf(Limit limit) {
        Object held = states;
        if (held == INLINE) {
            return balanceMilli;
        }
        if (held instanceof LimitState single) {
            return single.balanceMilli();
        }
        @SuppressWarnings("unchecked")
        LimitState state = ((Map<String, LimitState>) held).get(limit.name());
        return state == null ? 0 : state.balanceMilli();
    }

    void copyFrom(Cell other) {
        this.lastRefillMillis = other.lastRefillMillis;
        this.balanceMilli = other.balanceMilli;
        this.consumedMilli = other.consumedMilli;
        this.windowStartMillis = other.windowStartMillis;
        this.states = other.states;
        this.limits = other.limits;
    }

    /**
     * Forgets the bucket's state when its life ended by {@code now} under {@code kept}, the limits the bucket is
     * kept under ({@link BucketLife}): it is then new, its consumption counters restarting, as the DynamoDB store
     * reads an item past its horizon. Never judged under a call's override: a bucket that owes lives on.
     */
    void endIfOver(List<Limit> kept, long now) {
        if (states != null && ended(kept, now)) {
            states = null;
        }
    }

    /**
     * Whether the written bucket's life ended by {@code now} under {@code kept}, the limits the bucket is kept
     * under now (never a call's override): its horizon, from its last write and the limits it was written under
     * (what the DynamoDB store writes into the item), has come and it is full under {@code kept}. No horizon is
     * less than {@link BucketLife#MIN_HORIZON_MILLIS}, which spares the busy buckets the computation.
     */
    boolean ended(List<Limit> kept, long now) {
        if (now - lastRefillMillis < BucketLife.MIN_HORIZON_MILLIS) {
            return false;
        }
        long endsAfter = BucketLife.endsAfter(limits, lastRefillMillis);
        return endsAfter <= now && BucketLife.ended(endsAfter, state(kept).refilled(kept, now), kept, now);
    }

    /** Hands any usage counts this bucket holds to {@code pending}, before it goes. */
    void retire(Queue<PendingUsage> pending, BucketKey key) {
        retired = true;
        if (this instanceof CountingCell counting) {
            counting.moveTo(pending, key);
        }
    }

    void store(BucketState state, List<Limit> limits) {
        this.lastRefillMillis = state.lastRefillMillis();
        this.limits = limits;
        Map<String, LimitState> all = state.limits();
        if (all.size() == 1 && limits.size() == 1) {
            LimitState single = all.get(limits.get(0).name());
            if (single != null) {
                store(single, state.lastRefillMillis(), limits);
                return;
            }
        }
        this.states = all;
    }

    /** Keeps {@code single} as the state of the one limit of {@code limits}, at {@code at}. */
    void store(LimitState single, long at, List<Limit> limits) {
        this.lastRefillMillis = at;
        this.limits = limits;
        if (single.holders().isEmpty()) {
            this.balanceMilli = single.balanceMilli();
            this.consumedMilli = single.consumedMilli();
            this.windowStartMillis = single.windowStartMillis();
            this.states = INLINE;
        } else {
            this.states = single;
        }
    }
}
