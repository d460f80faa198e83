package dev.zaelimiter.algorithm;

import dev.zaelimiter.Limit;

import java.time.Duration;
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

    /** A new bucket: every limit full at the capacity in force at {@code now}, nothing consumed. */
    public static BucketState fresh(List<Limit> limits, long now) {
        Map<String, LimitState> states = new HashMap<>(limits.size() * 2);
        for (Limit limit : limits) {
            states.put(limit.name(), new LimitState(limit.parametersAt(now).capacityMilli(), 0));
        }
        return new BucketState(now, states);
    }

    /**
     * This bucket brought to {@code now} under {@code limits}, with the parameters each limit has at {@code now}:
     * a dripping limit refills, a calendar quota whose reset edge passed since the last refill starts over full
     * (once, however many edges passed), a session quota whose session ended starts over full. A limit the bucket
     * lacks starts full, a limit that {@code limits} no longer has is dropped, a balance above the capacity in
     * force is clipped. A {@code now} earlier than {@link #lastRefillMillis()} refills and resets nothing and keeps
     * the later instant.
     */
    public BucketState refilled(List<Limit> limits, long now) {
        Map<String, LimitState> states = new HashMap<>(limits.size() * 2);
        for (Limit limit : limits) {
            LimitState old = this.limits.get(limit.name());
            Limit.Parameters p = limit.parametersAt(Math.max(now, lastRefillMillis));
            LimitState next;
            if (limit.isConcurrency()) {
                next = slots(limit, old, Math.max(now, lastRefillMillis), p.capacityMilli());
            } else if (old == null) {
                next = new LimitState(p.capacityMilli(), 0);
            } else if (p.drips()) {
                long balance = BucketMath.refill(old.balanceMilli(), p.capacityMilli(), p.refillAmountMilli(),
                        p.refillPeriodMillis(), lastRefillMillis, now);
                next = balance == old.balanceMilli() ? old
                        : new LimitState(balance, old.consumedMilli(), old.windowStartMillis());
            } else if (now > lastRefillMillis && limit.nextResetAfter(lastRefillMillis) <= now) {
                next = new LimitState(p.capacityMilli(), old.consumedMilli());
            } else if (old.inWindow() && now >= sessionEnd(limit, old)) {
                next = new LimitState(p.capacityMilli(), old.consumedMilli());
            } else if (old.balanceMilli() > p.capacityMilli()) {
                next = new LimitState(p.capacityMilli(), old.consumedMilli(), old.windowStartMillis());
            } else {
                next = old;
            }
            states.put(limit.name(), next);
        }
        return new BucketState(Math.max(lastRefillMillis, now), states);
    }

    /** A concurrency limit's state with the slots that expired by {@code now} given back. */
    private static LimitState slots(Limit limit, LimitState old, long now, long capacityMilli) {
        if (old == null) {
            return new LimitState(capacityMilli, 0);
        }
        Map<String, Long> live = old.holders();
        for (long expiry : old.holders().values()) {
            if (expiry <= now) {
                live = new HashMap<>();
                for (Map.Entry<String, Long> e : old.holders().entrySet()) {
                    if (e.getValue() > now) {
                        live.put(e.getKey(), e.getValue());
                    }
                }
                break;
            }
        }
        long free = capacityMilli - live.size() * Limit.MILLI;
        return new LimitState(free, old.consumedMilli(), LimitState.NO_WINDOW, live);
    }

    private static long sessionEnd(Limit limit, LimitState state) {
        Duration length = limit.resetAfter().orElse(null);
        return length == null ? Long.MAX_VALUE : BucketMath.saturatedAdd(state.windowStartMillis(), length.toMillis());
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
     * Takes {@code amountsMilli} from the balances, unchecked, and counts it as consumed; a session quota that is
     * consumed outside a session starts one now. With {@code countOnly} (a bypassed entity) the balances stay as
     * they are and only consumption is counted. Names the bucket does not hold are ignored.
     */
    public BucketState debited(List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly) {
        return debited(limits, amountsMilli, countOnly, null);
    }

    /**
     * As {@link #debited(List, Map, boolean)}; a concurrency limit consumed here gives a slot to {@code leaseId},
     * which expires one lease timeout from now unless renewed.
     */
    public BucketState debited(List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly,
            String leaseId) {
        Map<String, LimitState> states = new HashMap<>(this.limits);
        for (Limit limit : limits) {
            LimitState old = states.get(limit.name());
            long amount = amountsMilli.getOrDefault(limit.name(), 0L);
            if (old == null || amount == 0) {
                continue;
            }
            long balance = countOnly ? old.balanceMilli() : BucketMath.saturatedSubtract(old.balanceMilli(), amount);
            long window = old.windowStartMillis();
            Map<String, Long> holders = old.holders();
            if (!countOnly && amount > 0 && window == LimitState.NO_WINDOW && limit.resetAfter().isPresent()) {
                window = lastRefillMillis;
            }
            if (!countOnly && amount > 0 && limit.isConcurrency() && leaseId != null) {
                holders = new HashMap<>(holders);
                holders.put(leaseId, lastRefillMillis + limit.leaseTimeout().orElseThrow().toMillis());
            }
            states.put(limit.name(), new LimitState(balance, BucketMath.saturatedAdd(old.consumedMilli(), amount),
                    window, holders));
        }
        return new BucketState(lastRefillMillis, states);
    }

    /**
     * Like {@link #debited}, for later corrections: a negative amount gives tokens back, but never lifts a balance
     * above the capacity in force.
     */
    public BucketState adjusted(List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly) {
        return adjusted(limits, amountsMilli, countOnly, null);
    }

    /**
     * As {@link #adjusted(List, Map, boolean)}; a negative amount of a concurrency limit gives back the slot of
     * {@code leaseId} (once: a slot already given back, or expired, is not given back again).
     */
    public BucketState adjusted(List<Limit> limits, Map<String, Long> amountsMilli, boolean countOnly,
            String leaseId) {
        Map<String, Long> amounts = new HashMap<>(amountsMilli);
        Map<String, LimitState> released = new HashMap<>();
        for (Limit limit : limits) {
            if (limit.isConcurrency() && amounts.containsKey(limit.name())) {
                amounts.remove(limit.name());
                LimitState state = this.limits.get(limit.name());
                if (state != null && leaseId != null && state.holders().containsKey(leaseId)) {
                    Map<String, Long> holders = new HashMap<>(state.holders());
                    holders.remove(leaseId);
                    released.put(limit.name(), new LimitState(state.balanceMilli() + Limit.MILLI,
                            state.consumedMilli(), LimitState.NO_WINDOW, holders));
                }
            }
        }
        BucketState debited = debited(limits, amounts, countOnly, leaseId);
        Map<String, LimitState> states = new HashMap<>(debited.limits);
        states.putAll(released);
        for (Limit limit : limits) {
            LimitState state = states.get(limit.name());
            long capacity = limit.parametersAt(lastRefillMillis).capacityMilli();
            if (state != null && state.balanceMilli() > capacity) {
                states.put(limit.name(), new LimitState(capacity, state.consumedMilli(), state.windowStartMillis(),
                        state.holders()));
            }
        }
        return new BucketState(lastRefillMillis, states);
    }

    /** The slots of {@code leaseId} on every concurrency limit renewed for one lease timeout from now. */
    public BucketState renewed(List<Limit> limits, String leaseId) {
        Map<String, LimitState> states = new HashMap<>(this.limits);
        for (Limit limit : limits) {
            LimitState state = states.get(limit.name());
            if (limit.isConcurrency() && state != null && state.holders().containsKey(leaseId)) {
                Map<String, Long> holders = new HashMap<>(state.holders());
                holders.put(leaseId, lastRefillMillis + limit.leaseTimeout().orElseThrow().toMillis());
                states.put(limit.name(), new LimitState(state.balanceMilli(), state.consumedMilli(),
                        state.windowStartMillis(), holders));
            }
        }
        return new BucketState(lastRefillMillis, states);
    }

    /** Whether {@code leaseId} still holds a slot of every concurrency limit that {@code amountsMilli} took. */
    public boolean holds(List<Limit> limits, Map<String, Long> amountsMilli, String leaseId) {
        for (Limit limit : limits) {
            LimitState state = this.limits.get(limit.name());
            if (limit.isConcurrency() && amountsMilli.getOrDefault(limit.name(), 0L) > 0
                    && (state == null || !state.holders().containsKey(leaseId))) {
                return false;
            }
        }
        return true;
    }

    /** Whether every limit is at the capacity in force, so that the bucket is indistinguishable from a fresh one. */
    public boolean isFull(List<Limit> limits) {
        for (Limit limit : limits) {
            LimitState state = this.limits.get(limit.name());
            if (state == null || state.balanceMilli() < limit.parametersAt(lastRefillMillis).capacityMilli()) {
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

    /**
     * Milliseconds from {@link #lastRefillMillis()} until {@code limit} could cover {@code needMilli}, walking the
     * schedule: a dripping limit waits for its refill, but never past the next window boundary, where its parameters
     * change; a quota waits for its next reset; a concurrency limit waits for its earliest slot to expire (a slot
     * given back earlier frees it sooner). {@link BucketMath#NEVER} when {@code needMilli} exceeds every capacity the
     * limit has.
     */
    public long retryAfterMillis(Limit limit, long needMilli) {
        long now = lastRefillMillis;
        LimitState state = limits.get(limit.name());
        long balance = state == null ? 0 : state.balanceMilli();
        if (balance >= needMilli) {
            return 0;
        }
        if (needMilli > limit.maxCapacityMilli()) {
            return BucketMath.NEVER;
        }
        Limit.Parameters p = limit.parametersAt(now);
        long wait = BucketMath.NEVER;
        if (p.drips()) {
            wait = BucketMath.retryAfterMillis(balance, needMilli, p.capacityMilli(), p.refillAmountMilli(),
                    p.refillPeriodMillis(), now);
        } else if (limit.isConcurrency()) {
            long earliest = Long.MAX_VALUE;
            for (long expiry : state == null ? List.<Long>of() : state.holders().values()) {
                earliest = Math.min(earliest, expiry);
            }
            wait = earliest == Long.MAX_VALUE ? BucketMath.NEVER : Math.max(0, earliest - now);
        } else if (limit.resetSchedule().isPresent()) {
            wait = untilAfter(limit.nextResetAfter(now), now);
        } else if (state != null && state.inWindow()) {
            wait = Math.max(0, untilAfter(sessionEnd(limit, state), now));
        }
        return Math.min(wait, untilAfter(limit.nextChangeAfter(now), now));
    }

    private static long untilAfter(long instant, long now) {
        return instant == Limit.NEVER ? BucketMath.NEVER : BucketMath.saturatedSubtract(instant, now);
    }
}
