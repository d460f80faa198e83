package dev.zaelimiter.algorithm;

import dev.zaelimiter.Limit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of every limit of one entity on one resource at one instant, with the pure transitions that stores
 * apply: refill to an instant, check, debit, adjust. Instances are immutable; each transition returns a new one.
 *
 * @param lastRefillMillis the instant the balances were computed for
 * @param limits           state per limit name
 */
public record BucketState(long lastRefillMillis, Map<String, LimitState> limits) {

    public BucketState {
        limits = Map.copyOf(limits);
    }

    /** A new bucket: every limit full, nothing consumed. */
    public static BucketState fresh(List<Limit> limits, long now) {
        Map<String, LimitState> states = new HashMap<>(limits.size() * 2);
        for (Limit limit : limits) {
            states.put(limit.name(), new LimitState(limit.capacityMilli(), 0));
        }
        return new BucketState(now, states);
    }

    /**
     * This bucket refilled to {@code now} under {@code limits}: a limit the bucket lacks starts full, a limit that
     * {@code limits} no longer has is dropped, a balance above a lowered capacity is clipped. A {@code now} earlier
     * than {@link #lastRefillMillis()} refills nothing and keeps the later instant.
     */
    public BucketState refilled(List<Limit> limits, long now) {
        Map<String, LimitState> states = new HashMap<>(limits.size() * 2);
        for (Limit limit : limits) {
            LimitState old = this.limits.get(limit.name());
            if (old == null) {
                states.put(limit.name(), new LimitState(limit.capacityMilli(), 0));
            } else {
                long balance = BucketMath.refill(old.balanceMilli(), limit.capacityMilli(), limit.refillAmountMilli(),
                        limit.refillPeriodMillis(), lastRefillMillis, now);
                states.put(limit.name(), balance == old.balanceMilli() ? old : new LimitState(balance,
                        old.consumedMilli()));
            }
        }
        return new BucketState(Math.max(lastRefillMillis, now), states);
    }

    /** Whether every hard limit in {@code limits} holds what {@code amountsMilli} asks of it. Soft limits pass. */
    public boolean admits(List<Limit> limits, Map<String, Long> amountsMilli) {
        for (Limit limit : limits) {
            if (!limit.isSoft() && !covers(limit.name(), amountsMilli)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the balance of {@code name} covers what {@code amountsMilli} asks of it (nothing asked: yes). */
    public boolean covers(String name, Map<String, Long> amountsMilli) {
        long amount = amountsMilli.getOrDefault(name, 0L);
        LimitState state = limits.get(name);
        return amount <= 0 || (state != null && state.balanceMilli() >= amount);
    }

    /**
     * Takes {@code amountsMilli} from the balances, unchecked, and counts it as consumed. With {@code countOnly}
     * (a bypassed entity) the balances stay as they are and only consumption is counted. Names the bucket does not
     * hold are ignored.
     */
    public BucketState debited(Map<String, Long> amountsMilli, boolean countOnly) {
        Map<String, LimitState> states = new HashMap<>(limits);
        for (Map.Entry<String, Long> e : amountsMilli.entrySet()) {
            LimitState old = states.get(e.getKey());
            if (old != null && e.getValue() != 0) {
                long amount = e.getValue();
                long balance = countOnly ? old.balanceMilli() : BucketMath.saturatedSubtract(old.balanceMilli(), amount);
                states.put(e.getKey(), new LimitState(balance, BucketMath.saturatedAdd(old.consumedMilli(), amount)));
            }
        }
        return new BucketState(lastRefillMillis, states);
    }

    /**
     * Like {@link #debited}, for later corrections: a negative amount gives tokens back, but never lifts a balance
     * above its limit's capacity.
     */
    public BucketState adjusted(List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly) {
        BucketState debited = debited(amountsMilli, countOnly);
        Map<String, LimitState> states = new HashMap<>(debited.limits);
        for (Limit limit : limits) {
            LimitState state = states.get(limit.name());
            if (state != null && state.balanceMilli() > limit.capacityMilli()) {
                states.put(limit.name(), new LimitState(limit.capacityMilli(), state.consumedMilli()));
            }
        }
        return new BucketState(lastRefillMillis, states);
    }

    /** Whether every limit is at its capacity, so that the bucket is indistinguishable from a fresh one. */
    public boolean isFull(List<Limit> limits) {
        for (Limit limit : limits) {
            LimitState state = this.limits.get(limit.name());
            if (state == null || state.balanceMilli() < limit.capacityMilli()) {
                return false;
            }
        }
        return true;
    }

    /** The balance of {@code name} in milli-tokens, or zero when the bucket has no such limit. */
    public long balanceMilli(String name) {
        LimitState state = limits.get(name);
        return state == null ? 0 : state.balanceMilli();
    }
}
