package dev.zaelimiter.store.memory;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.LimitRules;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.InPlaceBuckets.Outcome;
import dev.zaelimiter.store.InPlaceBuckets.Take;
import dev.zaelimiter.store.LimitState;

import java.util.List;
import java.util.Map;

/**
 * The decision {@link InPlaceBuckets#takeOne} makes on a cell, locked by the caller: on the cell as it is kept, a
 * bucket kept under one limit refilled and debited limit state to limit state, without a {@link BucketState}
 * (in the cell's own fields when it can), any other brought under the call's limits the general way. Either way
 * the result is what {@code tryAcquire} decides and writes.
 */
final class InPlaceTake {

    private InPlaceTake() {
    }

    /**
     * Decides {@code take} on {@code cell} at {@code now}, tells {@code outcome}, and answers whether it admitted: a
     * limit that holds tokens, kept in the cell's fields, is refilled and debited there, allocating nothing; any
     * other single limit through {@link BucketState}'s per-limit transitions; a cell of several limits the general
     * way.
     */
    static <C> boolean take(Cell cell, Take take, long now, Outcome<C> outcome, C call) {
        List<Limit> limits = take.limits();
        cell.endIfOver(limits, now);
        if (!cell.holdsOne()) {
            return takeOneOfMany(cell, take, now, outcome, call);
        }
        Limit limit = limits.get(0);
        return cell.states == Cell.INLINE && !limit.isConcurrency() && sameName(cell.limits, limit)
                && !cell.limits.get(0).isConcurrency()
                ? takeInline(cell, limit, take, now, outcome, call)
                : takeOneState(cell, limit, take, now, outcome, call);
    }

    /** {@link #take} through {@link BucketState}'s per-limit transitions. */
    private static <C> boolean takeOneState(Cell cell, Limit limit, Take take, long now, Outcome<C> outcome,
            C call) {
        long amountMilli = take.amountMilli();
        boolean countOnly = take.countOnly();
        Object held = cell.states;
        long last = held == null ? now : cell.lastRefillMillis;
        LimitState old = held != null && sameName(cell.limits, limit) ? cell.single(limit) : null;
        LimitState refilled = BucketState.refilledLimit(limit, old, last, now);
        if (!countOnly && BucketState.refuses(limit, amountMilli, refilled.balanceMilli(), false)) {
            outcome.refused(call, cell.state(take.limits()));
            return false;
        }
        long at = Math.max(last, now);
        LimitState after = amountMilli == 0 ? refilled
                : BucketState.debitedLimit(limit, refilled, at, amountMilli, countOnly, null);
        cell.store(after, at, take.limits());
        outcome.admitted(call, after.balanceMilli(), at);
        return true;
    }

    /**
     * {@link #take} on a limit kept in the plain fields of a cell: the refill, check and debit of {@link
     * LimitRules}, which {@link BucketState} follows too, in place.
     */
    private static <C> boolean takeInline(Cell cell, Limit limit, Take take, long now, Outcome<C> outcome, C call) {
        long amountMilli = take.amountMilli();
        boolean countOnly = take.countOnly();
        long last = cell.lastRefillMillis;
        Limits.Parameters p = Limits.parametersAt(limit, Math.max(now, last));
        long balance = LimitRules.refilledBalance(limit, p, cell.balanceMilli, cell.windowStartMillis, last, now);
        if (BucketState.refuses(limit, amountMilli, balance, countOnly)) {
            outcome.refused(call, cell.state());
            return false;
        }
        long at = Math.max(last, now);
        long window = LimitRules.refilledWindow(limit, p, cell.windowStartMillis, last, now);
        if (amountMilli != 0) {
            balance = LimitRules.debitedBalance(balance, amountMilli, countOnly);
            window = LimitRules.debitedWindow(limit, window, amountMilli, countOnly, at);
            cell.consumedMilli = LimitRules.debitedConsumed(cell.consumedMilli, amountMilli);
        }
        cell.balanceMilli = balance;
        cell.windowStartMillis = window;
        cell.lastRefillMillis = at;
        cell.limits = take.limits();
        outcome.admitted(call, balance, at);
        return true;
    }

    private static boolean sameName(List<Limit> kept, Limit limit) {
        return kept.size() == 1 && (kept.get(0) == limit || kept.get(0).name().equals(limit.name()));
    }

    /** {@link #take} on a cell that holds several limits' states. */
    private static <C> boolean takeOneOfMany(Cell cell, Take take, long now, Outcome<C> outcome, C call) {
        List<Limit> limits = take.limits();
        boolean countOnly = take.countOnly();
        Limit limit = limits.get(0);
        Map<String, Long> amounts = Map.of(limit.name(), take.amountMilli());
        BucketState stored = cell.state(limits);
        BucketState state = stored.refilled(limits, now);
        if (!countOnly && !state.admits(limits, amounts)) {
            outcome.refused(call, stored);
            return false;
        }
        BucketState debited = state.debited(limits, amounts, countOnly, null);
        cell.store(debited, limits);
        outcome.admitted(call, debited.limits().get(limit.name()).balanceMilli(), debited.lastRefillMillis());
        return true;
    }
}
