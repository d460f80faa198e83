package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.algorithm.FullAt;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketState;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.math.BigInteger;

/**
 * The clauses of a dripping limit in a {@link BucketUpdate}: its full-at point ({@link FullAt}), for a reserving limit
 * with the held total and hold of {@link Holds}, and the time to live of a write that may leave it owing. Each write
 * assumes, from what this process guesses, whether the bucket is full, and its condition checks the assumption.
 */
final class DripClauses {

    private DripClauses() {
    }

    /**
     * A dripping limit's full-at point in an update. Taking from a full bucket sets the point to now's grid plus the
     * amount; taking from a busy one adds the amount, and a hard limit requires that the point stays within one
     * capacity of now. Giving back subtracts, or sets the point to now when that would go past it (full).
     */
    static void drip(Expression e, String name, Limits.Parameters p, long amount, long now, BucketState guess,
            boolean hard) {
        drip(e, name, p, amount, now, guess, hard, now);
    }

    /**
     * As above; a hard debit that books ({@code bookUntil} after {@code now}) requires instead that the point stays
     * within one capacity of {@code bookUntil}: the balance, taken into debt, is back to zero by then.
     */
    static void drip(Expression e, String name, Limits.Parameters p, long amount, long now, BucketState guess,
            boolean hard, long bookUntil) {
        String fullAt = e.name(ItemCodec.FULL_AT + name);
        BigInteger grid = FullAt.grid(now, p);
        BigInteger amountMilli = BigInteger.valueOf(amount);
        e.set.add(e.name(ItemCodec.PARAMETERS + name) + " = " + e.value(ItemCodec.parameters(p)));
        long balance = guess == null ? p.capacityMilli() : guess.balanceMilli(name);
        if (amount > 0 && !hard && pastFloor(guess, name, amount)) {
            BigInteger floorPoint = grid.add(BigInteger.valueOf(p.capacityMilli()))
                    .subtract(BigInteger.valueOf(Long.MIN_VALUE));
            e.onLimits.add(fullAt + " > " + e.value(ItemCodec.number(floorPoint.subtract(amountMilli))));
            e.set.add(fullAt + " = " + e.value(ItemCodec.number(floorPoint)));
        } else if (amount > 0 && balance >= p.capacityMilli()) {
            e.onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " <= "
                    + e.value(ItemCodec.number(grid)) + ")");
            e.set.add(fullAt + " = " + e.value(ItemCodec.number(grid.add(amountMilli))));
        } else if (amount > 0) {
            e.onLimits.add(fullAt + " > " + e.value(ItemCodec.number(grid)));
            if (hard) {
                e.onLimits.add(fullAt + " <= " + e.value(ItemCodec.number(FullAt.grid(bookUntil, p)
                        .add(BigInteger.valueOf(p.capacityMilli())).subtract(amountMilli))));
            }
            e.set.add(fullAt + " = " + fullAt + " + " + e.value(ItemCodec.number(amountMilli)));
        } else {
            BigInteger refund = amountMilli.negate();
            BigInteger floor = grid.add(refund);
            boolean deep = BigInteger.valueOf(p.capacityMilli()).subtract(BigInteger.valueOf(balance))
                    .compareTo(refund) >= 0;
            if (deep) {
                e.onLimits.add(fullAt + " >= " + e.value(ItemCodec.number(floor)));
                e.set.add(fullAt + " = " + fullAt + " - " + e.value(ItemCodec.number(refund)));
            } else {
                e.onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " < "
                        + e.value(ItemCodec.number(floor)) + ")");
                e.set.add(fullAt + " = " + e.value(ItemCodec.number(grid)));
            }
        }
    }

    /**
     * A reserving limit in an update (see {@link Holds}): {@code t_} moves by what the whole bucket loses (the call's
     * amount and the tokens retired), {@code u_} by what the holds change, {@code s_} by both. {@code full} says
     * whether the whole bucket is full ({@code t_ <= grid(now)}), which the condition checks. What others can take
     * must cover the call and the new batch, less what is returned: when full, {@code capacity - u_}; otherwise
     * {@code capacity - (s_ - grid(now))}. A refund cannot lift the whole bucket past full.
     */
    static void reserving(Expression e, String name, Limits.Parameters p, long amount, long now, boolean full,
            boolean hard, Holds.Exchange x) {
        String fullAt = e.name(ItemCodec.FULL_AT + name);
        String heldPoint = e.name(ItemCodec.HELD_POINT + name);
        BigInteger grid = FullAt.grid(now, p);
        BigInteger capacity = BigInteger.valueOf(p.capacityMilli());
        long used = x == null ? 0 : x.used();
        long returned = x == null ? 0 : x.returned();
        long taken = x == null ? 0 : x.taken();
        BigInteger debit = BigInteger.valueOf(amount).add(BigInteger.valueOf(used));
        BigInteger heldChange = BigInteger.valueOf(taken).subtract(BigInteger.valueOf(used))
                .subtract(BigInteger.valueOf(returned));
        BigInteger need = BigInteger.valueOf(amount).add(BigInteger.valueOf(taken))
                .subtract(BigInteger.valueOf(returned));
        boolean checked = (hard || taken > 0) && need.signum() > 0;
        e.set.add(e.name(ItemCodec.PARAMETERS + name) + " = " + e.value(ItemCodec.parameters(p)));
        if (debit.signum() < 0) {
            BigInteger refund = debit.negate();
            if (!full) {
                e.onLimits.add(fullAt + " >= " + e.value(ItemCodec.number(grid.add(refund))));
                e.set.add(fullAt + " = " + fullAt + " - " + e.value(ItemCodec.number(refund)));
                e.set.add(heldPoint + " = " + heldPoint + " - " + e.value(ItemCodec.number(refund)));
            } else {
                String held = e.name(ItemCodec.HELD + name);
                String zero = e.value(ItemCodec.number(0));
                e.onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " < "
                        + e.value(ItemCodec.number(grid.add(refund))) + ")");
                e.set.add(fullAt + " = " + e.value(ItemCodec.number(grid)));
                e.set.add(heldPoint + " = if_not_exists(" + held + ", " + zero + ") + "
                        + e.value(ItemCodec.number(grid)));
                e.set.add(held + " = if_not_exists(" + held + ", " + zero + ")");
            }
        } else if (full) {
            String held = e.name(ItemCodec.HELD + name);
            String zero = e.value(ItemCodec.number(0));
            e.onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " <= "
                    + e.value(ItemCodec.number(grid)) + ")");
            if (checked) {
                e.onLimits.add("(attribute_not_exists(" + held + ") OR " + held + " <= "
                        + e.value(ItemCodec.number(capacity.subtract(need))) + ")");
            }
            e.set.add(fullAt + " = " + e.value(ItemCodec.number(grid.add(debit))));
            e.set.add(held + " = if_not_exists(" + held + ", " + zero + ") + " + e.value(ItemCodec.number(heldChange)));
            e.set.add(heldPoint + " = if_not_exists(" + held + ", " + zero + ") + "
                    + e.value(ItemCodec.number(grid.add(debit).add(heldChange))));
        } else {
            String held = e.name(ItemCodec.HELD + name);
            e.onLimits.add(fullAt + " > " + e.value(ItemCodec.number(grid)));
            if (checked) {
                e.onLimits.add(heldPoint + " <= " + e.value(ItemCodec.number(grid.add(capacity).subtract(need))));
            }
            e.set.add(fullAt + " = " + fullAt + " + " + e.value(ItemCodec.number(debit)));
            e.set.add(held + " = " + held + " + " + e.value(ItemCodec.number(heldChange)));
            e.set.add(heldPoint + " = " + heldPoint + " + " + e.value(ItemCodec.number(debit.add(heldChange))));
        }
        if (x != null) {
            String hold = e.name(x.attribute());
            e.onLimits.add(x.oldEntry() == null ? "attribute_not_exists(" + hold + ")"
                    : hold + " = " + e.value(AttributeValue.fromS(x.oldEntry())));
            if (x.newEntry() == null) {
                e.remove.add(hold);
            } else {
                e.set.add(hold + " = " + e.value(AttributeValue.fromS(x.newEntry())));
            }
        }
    }

    /**
     * Moves the time to live of a write that may leave a dripping limit owing more than its capacity (a soft limit,
     * a correction), so that no expiry forgets the debt: every dripping limit is bounded by a condition (its full-at
     * point at most two capacities past what {@code guess} says it lacks, or one when it lacks nothing; a wrong guess
     * fails it and is settled from the item), and the item lives until the last of them is full again after this
     * write, plus the idle horizon.
     */
    static void owedTtl(Expression e, BucketDebit debit, long now, BucketState guess, long stampTtlMillis) {
        long until = now + stampTtlMillis;
        for (Limit limit : debit.limits()) {
            Limits.Parameters p = Limits.parametersAt(limit, now);
            if (limit.isConcurrency() || !p.drips()) {
                continue;
            }
            BigInteger grid = FullAt.grid(now, p);
            BigInteger capacity = BigInteger.valueOf(p.capacityMilli());
            long balance = guess == null ? p.capacityMilli() : Math.min(guess.balanceMilli(limit.name()),
                    p.capacityMilli());
            BigInteger bound = grid.add(capacity.shiftLeft(1)).subtract(BigInteger.valueOf(balance));
            String fullAt = e.name(ItemCodec.FULL_AT + limit.name());
            e.onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " <= "
                    + e.value(ItemCodec.number(bound)) + ")");
            long amount = Math.max(0, debit.amountsMilli().getOrDefault(limit.name(), 0L));
            until = Math.max(until, BucketMath.saturatedAdd(now,
                    ItemTimes.creditMillis(bound.add(BigInteger.valueOf(amount)).subtract(grid), p)));
        }
        e.set.add(e.name(ItemCodec.TTL) + " = " + e.value(ItemCodec.number(ItemTimes.ttl(debit.limits(), until, now))));
    }

    /**
     * Whether taking {@code amount} would push the guessed balance below {@link Long#MIN_VALUE}: the write then sets
     * the balance to that floor, as the in-memory store saturates, instead of keeping debt no reader can see.
     */
    static boolean pastFloor(BucketState guess, String name, long amount) {
        return guess != null && guess.balanceMilli(name) < Long.MIN_VALUE + amount;
    }

    /**
     * Whether a write of {@code counted} milli-tokens to a reserving limit takes the branch of a full bucket, guessed
     * from {@code guess} (others can take its balance) and the held total: a debit when the bucket lacks nothing; a
     * refund when it lacks less than the refund (as {@link #drip} splits a refund), so that the branch's
     * condition holds whenever the guess is right.
     */
    static boolean fullFor(BucketState guess, long held, String name, long counted, long capacity) {
        if (guess == null) {
            return true;
        }
        BigInteger lacking = BigInteger.valueOf(capacity).subtract(BigInteger.valueOf(guess.balanceMilli(name)))
                .subtract(BigInteger.valueOf(held));
        return counted < 0 ? lacking.compareTo(BigInteger.valueOf(counted).negate()) < 0 : lacking.signum() <= 0;
    }
}
