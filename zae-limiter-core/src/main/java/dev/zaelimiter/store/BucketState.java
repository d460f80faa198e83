package dev.zaelimiter.store;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.algorithm.LimitRules;
import dev.zaelimiter.Limit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The state of every limit of one entity on one resource at one instant, with the pure transitions that stores
 * apply: refill to an instant, check, debit, adjust. Instances are immutable; each transition returns a new one.
 * Two states are equal when their instant and limit states are; where a state came from is not part of it.
 *
 * <p>A state {@linkplain #refilled refilled} for a decision remembers the state it was computed from (the one the
 * store holds; {@link #fresh} for a bucket the store does not hold), because a store does not write the refill of a
 * refused call: the next call refills from that stored state again, with the parameters in force then, so
 * {@link #retryAfterMillis} has to start from it to find when a request really passes.
 *
 * <p>Every transition of a bucket (refill, check, debit, adjust, renew, retry-after) is a pure function of this one
 * immutable value, so that every store applies exactly the same rules; the rules of one limit that holds tokens are
 * written once, over plain values, in {@code LimitRules}, which the in-memory store's in-place decision also
 * follows.
 */
public sealed class BucketState permits BucketState.Refilled {

    private final long lastRefillMillis;
    private final Map<String, LimitState> limits;

    /**
     * @param lastRefillMillis the instant the balances were computed for
     * @param limits           state per limit name
     */
    public BucketState(long lastRefillMillis, Map<String, LimitState> limits) {
        this.lastRefillMillis = lastRefillMillis;
        this.limits = Map.copyOf(limits);
    }

    /** A state refilled from {@code origin}; kept apart so that stored states carry no extra field. */
    static final class Refilled extends BucketState {

        private final BucketState origin;

        Refilled(long lastRefillMillis, Map<String, LimitState> limits, BucketState origin) {
            super(lastRefillMillis, limits);
            this.origin = origin;
        }
    }

    /** The instant the balances were computed for. */
    public long lastRefillMillis() {
        return lastRefillMillis;
    }

    /** State per limit name. */
    public Map<String, LimitState> limits() {
        return limits;
    }

    /** The state this one was refilled from, or this one when it was not refilled. */
    BucketState origin() {
        return this instanceof Refilled refilled ? refilled.origin : this;
    }

    /**
     * A new bucket: every limit full at the capacity in force at {@code now}, nothing consumed. It remembers that the
     * store holds no state for it, so that it stays full at whatever capacity is in force until it is written.
     */
    public static BucketState fresh(List<Limit> limits, long now) {
        if (limits.size() == 1) {
            Limit limit = limits.get(0);
            return new Refilled(now, Map.of(limit.name(), new LimitState(Limits.parametersAt(limit, now)
                    .capacityMilli(), 0)), new BucketState(now, Map.of()));
        }
        Map<String, LimitState> states = new HashMap<>(limits.size() * 2);
        for (Limit limit : limits) {
            states.put(limit.name(), new LimitState(Limits.parametersAt(limit, now).capacityMilli(), 0));
        }
        return new Refilled(now, states, new BucketState(now, Map.of()));
    }

    /**
     * This bucket brought to {@code now} under {@code limits}, with the parameters each limit has at {@code now}:
     * a dripping limit refills, a calendar quota whose reset edge passed since the last refill starts over full
     * (once, however many edges passed), a session quota whose session ended starts over full. A limit the bucket
     * lacks starts full, a limit that {@code limits} no longer has is dropped, a balance above the capacity in
     * force is clipped. A changed limit keeps its balance, whatever changed (capacity, rate, schedule, kind, soft or
     * hard), except that a session quota outside a session is always full. A {@code now} earlier than {@link #lastRefillMillis()} refills and resets nothing and keeps
     * the later instant. The refill of the whole time since {@link #lastRefillMillis()} is at the rate in force at
     * {@code now}. The result remembers this state as the one it was refilled from.
     */
    public BucketState refilled(List<Limit> limits, long now) {
        if (limits.size() == 1) {
            Limit limit = limits.get(0);
            LimitState old = this.limits.get(limit.name());
            LimitState next = refilled(limit, old, now);
            Map<String, LimitState> states = next == old && this.limits.size() == 1 ? this.limits
                    : Map.of(limit.name(), next);
            return new Refilled(Math.max(lastRefillMillis, now), states, this);
        }
        Map<String, LimitState> states = new HashMap<>(limits.size() * 2);
        for (Limit limit : limits) {
            states.put(limit.name(), refilled(limit, this.limits.get(limit.name()), now));
        }
        return new Refilled(Math.max(lastRefillMillis, now), states, this);
    }

    /** The state of {@code limit} in this bucket ({@code old}, or none) brought to {@code now}. */
    private LimitState refilled(Limit limit, LimitState old, long now) {
        return refilledLimit(limit, old, lastRefillMillis, now);
    }

    /**
     * The transition {@link #refilled(List, long)} applies to each limit, on its own: {@code old}, the state of
     * {@code limit} in a bucket last refilled at {@code lastRefillMillis} ({@code null}: the bucket lacks it),
     * brought to {@code now}. Returns {@code old} itself when nothing changed. For stores that keep one limit's
     * state without a {@code BucketState} around it.
     */
    public static LimitState refilledLimit(Limit limit, LimitState old, long lastRefillMillis, long now) {
        Limits.Parameters p = Limits.parametersAt(limit, Math.max(now, lastRefillMillis));
        if (limit.isConcurrency()) {
            return slots(limit, old, Math.max(now, lastRefillMillis), p.capacityMilli());
        }
        if (old == null) {
            return new LimitState(p.capacityMilli(), 0);
        }
        long balance = LimitRules.refilledBalance(limit, p, old.balanceMilli(), old.windowStartMillis(),
                lastRefillMillis, now);
        long window = LimitRules.refilledWindow(limit, p, old.windowStartMillis(), lastRefillMillis, now);
        return balance == old.balanceMilli() && window == old.windowStartMillis() ? old
                : new LimitState(balance, old.consumedMilli(), window);
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
        long free = capacityMilli - live.size() * Limits.MILLI;
        return new LimitState(free, old.consumedMilli(), LimitState.NO_WINDOW, live);
    }

    /** Whether every hard limit in {@code limits} holds what {@code amountsMilli} asks of it. Soft limits pass. */
    public boolean admits(List<Limit> limits, Map<String, Long> amountsMilli) {
        for (Limit limit : limits) {
            if (refuses(limit, amountsMilli.getOrDefault(limit.name(), 0L), balanceMilli(limit.name()), false)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The booking rule, in one place: whether every hard limit in {@code limits} either holds what
     * {@code amountsMilli} asks of it now, or drips and holds it by refill within {@code horizonMillis} (its
     * {@link #retryAfterMillis} is at most that), so that it may be taken now, into debt, and the debt is paid back
     * by then. A limit that does not drip (a quota) is never taken into debt: its reset would forget the debt. With
     * a horizon of zero this is {@link #admits}.
     */
    public boolean admitsWithin(List<Limit> limits, Map<String, Long> amountsMilli, long horizonMillis) {
        for (Limit limit : limits) {
            long amount = amountsMilli.getOrDefault(limit.name(), 0L);
            if (refuses(limit, amount, balanceMilli(limit.name()), false) && (horizonMillis <= 0
                    || !Limits.parametersAt(limit, lastRefillMillis).drips() || limit.isConcurrency()
                    || retryAfterMillis(limit, amount) > horizonMillis)) {
                return false;
            }
        }
        return true;
    }

    /**
     * For a state just debited by {@code amountsMilli} (after {@link #admitsWithin}), milliseconds from
     * {@link #lastRefillMillis()} until every hard limit it took from is out of debt again: when a booked call's slot
     * comes. Zero when none is in debt.
     */
    public long bookedWaitMillis(List<Limit> limits, Map<String, Long> amountsMilli) {
        long wait = 0;
        for (Limit limit : limits) {
            if (!limit.isSoft() && !limit.isConcurrency() && amountsMilli.getOrDefault(limit.name(), 0L) > 0
                    && balanceMilli(limit.name()) < 0) {
                wait = Math.max(wait, retryAfterMillis(limit, 0));
            }
        }
        return wait;
    }

    /**
     * The admission rule, in one place: whether {@code limit} refuses to give {@code amountMilli} from
     * {@code balanceMilli}. Only a hard limit asked for a positive amount by a debit that is not count-only (a
     * bypassed entity's) refuses, and only when its balance does not cover the amount.
     */
    public static boolean refuses(Limit limit, long amountMilli, long balanceMilli, boolean countOnly) {
        return !countOnly && !limit.isSoft() && amountMilli > 0 && balanceMilli < amountMilli;
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
        if (limits.size() == 1 && this.limits.size() == 1) {
            Limit limit = limits.get(0);
            LimitState old = this.limits.get(limit.name());
            long amount = amountsMilli.getOrDefault(limit.name(), 0L);
            return old == null || amount == 0 ? new BucketState(lastRefillMillis, this.limits)
                    : new BucketState(lastRefillMillis, Map.of(limit.name(),
                            debited(limit, old, amount, countOnly, leaseId)));
        }
        Map<String, LimitState> states = new HashMap<>(this.limits);
        for (Limit limit : limits) {
            LimitState old = states.get(limit.name());
            long amount = amountsMilli.getOrDefault(limit.name(), 0L);
            if (old == null || amount == 0) {
                continue;
            }
            states.put(limit.name(), debited(limit, old, amount, countOnly, leaseId));
        }
        return new BucketState(lastRefillMillis, states);
    }

    /** {@code old}, the state of {@code limit}, debited by {@code amount} milli-tokens. */
    private LimitState debited(Limit limit, LimitState old, long amount, boolean countOnly, String leaseId) {
        return debitedLimit(limit, old, lastRefillMillis, amount, countOnly, leaseId);
    }

    /**
     * The transition {@link #debited(List, Map, boolean, String)} applies to each limit, on its own: {@code old}, the
     * state of {@code limit} in a bucket refilled to {@code atMillis}, debited by {@code amount} milli-tokens.
     */
    public static LimitState debitedLimit(Limit limit, LimitState old, long atMillis, long amount, boolean countOnly,
            String leaseId) {
        long window = LimitRules.debitedWindow(limit, old.windowStartMillis(), amount, countOnly, atMillis);
        Map<String, Long> holders = old.holders();
        if (!countOnly && amount > 0 && limit.isConcurrency() && leaseId != null) {
            holders = new HashMap<>(holders);
            holders.put(leaseId, atMillis + limit.leaseTimeout().orElseThrow().toMillis());
        }
        return new LimitState(LimitRules.debitedBalance(old.balanceMilli(), amount, countOnly),
                LimitRules.debitedConsumed(old.consumedMilli(), amount), window, holders);
    }

    /**
     * The state a shared bucket keeps after a call admitted against a per-call override: this state is the call's
     * view, refilled under {@code viewLimits} (the override) from the stored state. The bucket stays under
     * {@code keptLimits}: the stored state is refilled under them and debited by what the call took, and a limit the
     * override replaced never ends lower than that, so that an override lowers no other caller's balance by more
     * than the call consumed. (Where the call's view, debited, is higher, the bucket keeps that, up to the stored
     * capacity, as before.) Without an override ({@code keptLimits} equal to {@code viewLimits}) this is
     * {@link #debited(List, Map, boolean, String)}.
     */
    public BucketState debitedKept(List<Limit> viewLimits, List<Limit> keptLimits, Map<String, Long> amountsMilli,
            boolean countOnly, String leaseId) {
        BucketState view = debited(viewLimits, amountsMilli, countOnly, leaseId);
        if (keptLimits.equals(viewLimits)) {
            return view;
        }
        BucketState kept = origin().refilled(keptLimits, lastRefillMillis)
                .debited(keptLimits, amountsMilli, countOnly, leaseId);
        Map<String, LimitState> states = new HashMap<>(kept.limits);
        for (Limit limit : keptLimits) {
            LimitState own = states.get(limit.name());
            LimitState seen = view.limits.get(limit.name());
            if (own == null || seen == null || seen.balanceMilli() <= own.balanceMilli()) {
                continue;
            }
            long capacity = Limits.parametersAt(limit, lastRefillMillis).capacityMilli();
            long balance = Math.max(own.balanceMilli(), Math.min(seen.balanceMilli(), capacity));
            states.put(limit.name(), new LimitState(balance, own.consumedMilli(), own.windowStartMillis(),
                    own.holders()));
        }
        return new BucketState(lastRefillMillis, states);
    }

    /**
     * Like {@link #debited}, for later corrections: a negative amount gives tokens back, but never lifts a balance
     * above the capacity in force; a refund that brings a session quota back to its capacity ends its session.
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
                    released.put(limit.name(), new LimitState(state.balanceMilli() + Limits.MILLI,
                            state.consumedMilli(), LimitState.NO_WINDOW, holders));
                }
            }
        }
        BucketState debited = debited(limits, amounts, countOnly, leaseId);
        Map<String, LimitState> states = new HashMap<>(debited.limits);
        states.putAll(released);
        for (Limit limit : limits) {
            LimitState state = states.get(limit.name());
            long capacity = Limits.parametersAt(limit, lastRefillMillis).capacityMilli();
            if (state != null && state.balanceMilli() > capacity) {
                state = new LimitState(capacity, state.consumedMilli(), state.windowStartMillis(), state.holders());
                states.put(limit.name(), state);
            }
            if (state != null && endsSession(limit, state, amountsMilli, capacity)) {
                states.put(limit.name(), new LimitState(state.balanceMilli(), state.consumedMilli(),
                        LimitState.NO_WINDOW, state.holders()));
            }
        }
        return new BucketState(lastRefillMillis, states);
    }

    /**
     * Whether a refund of a session quota gave back everything its session still held (the balance is at the
     * capacity in force), so that no session is left behind: the next call that takes from it starts a new one. A
     * rolled-back opening call therefore anchors nothing.
     */
    private static boolean endsSession(Limit limit, LimitState state, Map<String, Long> amountsMilli, long capacity) {
        return state.inWindow() && limit.resetAfter().isPresent()
                && amountsMilli.getOrDefault(limit.name(), 0L) < 0 && state.balanceMilli() >= capacity;
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
            if (state == null || state.balanceMilli() < Limits.parametersAt(limit, lastRefillMillis).capacityMilli()) {
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
     * How many schedule segments (the spans between two window boundaries of a limit) {@link #retryAfterMillis}
     * examines at most: {@value}. Within them the answer is exact; beyond, it is the boundary where the walk stopped.
     * With windows of whole hours on every day that is more than a day ahead; with a window that changes every
     * minute, an hour.
     */
    public static final int MAX_SCHEDULE_STEPS = 64;

    /**
     * Milliseconds from {@link #lastRefillMillis()} until the first instant at which the same request for
     * {@code needMilli} of {@code limit} would really be admitted, if nothing else changed the bucket: the first
     * instant {@code t} at which the state this one was refilled from (the stored one), refilled to {@code t}, covers
     * it. A dripping limit waits for its refill, a calendar quota for its next reset, a session quota for the end of
     * the session, a concurrency limit for enough of its slots to expire (a slot given back earlier frees it sooner).
     *
     * <p>The schedule is walked forward segment by segment, with the parameters of each segment: a window that
     * raises the limit shortens the wait to its opening when the request passes then; a window that lowers it
     * (capacity, or the rate that counts for the whole time since the stored refill) lengthens it. The walk examines
     * at most {@link #MAX_SCHEDULE_STEPS} segments; when the request would not pass within them, the answer is the
     * end of the last segment examined: a time to ask again, never later than the real admission.
     *
     * @return the wait, zero when the balance covers {@code needMilli} now, or {@link BucketMath#NEVER} when
     *         {@code needMilli} exceeds every capacity the limit has or no later segment could admit it
     */
    public long retryAfterMillis(Limit limit, long needMilli) {
        return ScheduleWalk.retryAfterMillis(this, limit, needMilli);
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof BucketState other && lastRefillMillis == other.lastRefillMillis
                && limits.equals(other.limits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lastRefillMillis, limits);
    }

    @Override
    public String toString() {
        return "BucketState[lastRefillMillis=" + lastRefillMillis + ", limits=" + limits + "]";
    }
}
