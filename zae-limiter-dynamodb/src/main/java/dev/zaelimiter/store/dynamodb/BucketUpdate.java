package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.FullAt;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.math.BigInteger;
import java.util.Map;
import java.util.Queue;

/**
 * One conditional {@code UpdateItem} that applies a debit to a bucket item without reading it, built in steps: the
 * guards of the item ({@link #guarded}), one step per limit ({@link #limit}), what an admission that may create the
 * item writes ({@link #creatable}), the time to live of a write that may leave a debt ({@link #owedTtl}), the
 * correction markers ({@link #marked}), then the {@link #request}. A dripping limit's clauses are
 * {@link DripClauses}.
 */
final class BucketUpdate {

    private final Expression e = new Expression();
    private final BucketDebit debit;
    private final long now;
    private final BucketState guess;
    private final boolean correction;
    private final boolean refund;
    private final long stampTtlMillis;
    /** How far ahead a hard debit may book ({@link DripClauses#drip}); zero: it must be covered now. */
    private final long horizonMillis;
    private final String nowValue;
    private final String stampValue;
    /** Whether a dripping limit may be left owing more than its capacity: a debit not held to its balance. */
    private boolean owing;
    /**
     * Whether the response must return the whole item: some limit's state is not all written by this update (a limit
     * left untouched keeps its consumption, slots and holds live in maps). Otherwise the attributes the update writes
     * are all that reading the bucket needs, and only they come back.
     */
    private boolean returnsWholeItem;

    /**
     * @param guess      the bucket as this process believes it is at {@code now}; {@code null}: assumed full
     * @param correction an adjustment or rollback: never refused for lack of tokens, a refund never lifts a balance
     *                   above the capacity in force, and the item must exist
     * @param refund     a correction giving back what a refused call took, also the slots it counted as consumed
     */
    BucketUpdate(BucketDebit debit, long now, String stamp, BucketState guess, boolean correction, boolean refund,
            long stampTtlMillis) {
        this(debit, now, stamp, guess, correction, refund, stampTtlMillis, 0);
    }

    /** As above, for a debit that may book up to {@code horizonMillis} ahead ({@link BucketWrites#horizon}). */
    BucketUpdate(BucketDebit debit, long now, String stamp, BucketState guess, boolean correction, boolean refund,
            long stampTtlMillis, long horizonMillis) {
        this.horizonMillis = horizonMillis;
        this.debit = debit;
        this.now = now;
        this.guess = guess;
        this.correction = correction;
        this.refund = refund;
        this.stampTtlMillis = stampTtlMillis;
        this.nowValue = e.value(ItemCodec.number(now));
        this.stampValue = e.value(AttributeValue.fromS(stamp));
    }

    /**
     * The guards of every write: the item's stamp and deadline, and a horizon not reached (a bucket past it may have
     * ended, and is then new: such a write is settled from the item); the version moves on, the horizon with it.
     */
    void guarded() {
        e.add.add(e.name(ItemCodec.VERSION) + " " + e.value(ItemCodec.number(1)));
        e.set.add(e.name(ItemCodec.LAST_REFILL) + " = " + nowValue);
        e.onItem.add(e.name(ItemCodec.STAMP) + " = " + stampValue);
        e.onItem.add(e.name(ItemCodec.DEADLINE) + " > " + nowValue);
        String ends = e.name(ItemCodec.ENDS);
        e.onItem.add("(attribute_not_exists(" + ends + ") OR " + ends + " > " + nowValue + ")");
        e.set.add(ends + " = " + e.value(ItemCodec.number(BucketLife.endsAfter(debit.kept(), now))));
        if (guess == null) {
            // a process that knows nothing of the bucket (a first call, a reopened store) may be behind its last
            // write: it must count from that write, which the failure path reads, not move the item back in time
            e.onItem.add(e.name(ItemCodec.LAST_REFILL) + " <= " + nowValue);
        }
    }

    /**
     * The step of one limit; false when the debit cannot be admitted by any write (it asks a hard limit for more
     * than its capacity).
     *
     * @param x    what the write does to this process's hold of {@code limit}; {@code null}: nothing
     * @param full whether the bucket is full, as read from the item; {@code null}: guessed
     * @param held the held totals of reserving limits this process last saw in the item; {@code null}: none
     */
    boolean limit(Limit limit, Holds.Exchange x, Boolean full, Map<String, Long> held) {
        long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
        if (amount == 0 && x == null) {
            returnsWholeItem = true;
            untouched(limit);
            return true;
        }
        if (limit.isConcurrency()) {
            returnsWholeItem = true;
            slot(limit, amount);
            return true;
        }
        long counted = x == null ? amount : amount + x.used();
        if (counted != 0) {
            e.add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(counted)));
        }
        Limits.Parameters p = Limits.parametersAt(limit, now);
        if (debit.countOnly()) {
            returnsWholeItem = true;
            counted(limit, p);
            return true;
        }
        boolean hard = !correction && !limit.isSoft() && amount > 0;
        owing |= p.drips() && amount > 0 && !hard;
        if (hard && amount > p.capacityMilli()) {
            return false;
        }
        // a session's start is written only when one opens
        returnsWholeItem |= limit.resetAfter().isPresent();
        if (correction && amount > 0 && limit.resetAfter().isPresent()) {
            // a debit outside a session starts one, which a whole rewrite does (and sets the deadline to its end)
            e.onItem.add("attribute_exists(" + e.name(ItemCodec.WINDOW + limit.name()) + ")");
        }
        if (p.drips() && limit.localReservations()) {
            returnsWholeItem = true;
            long heldSeen = held == null ? 0 : held.getOrDefault(limit.name(), 0L);
            boolean isFull = full != null ? full
                    : DripClauses.fullFor(guess, heldSeen, limit.name(), counted, p.capacityMilli());
            DripClauses.reserving(e, limit.name(), p, amount, now, isFull, hard, x);
        } else if (p.drips()) {
            DripClauses.drip(e, limit.name(), p, amount, now, guess, hard, now + horizonMillis);
        } else {
            balance(limit, p, amount, hard);
        }
        return true;
    }

    /** A count-only debit (it only counts consumption): a limit's parameters or balance as a whole write has them. */
    private void counted(Limit limit, Limits.Parameters p) {
        if (p.drips()) {
            e.set.add(e.name(ItemCodec.PARAMETERS + limit.name()) + " = " + e.value(ItemCodec.parameters(p)));
        } else {
            String balance = e.name(ItemCodec.BALANCE + limit.name());
            e.set.add(balance + " = if_not_exists(" + balance + ", "
                    + e.value(ItemCodec.number(p.capacityMilli())) + ")");
        }
    }

    /**
     * A limit that does not drip (a quota) in an update: a debit lowers its balance (which starts at its capacity
     * when missing), a hard one only when the balance covers it, and opens a session where the limit resets; a
     * correction saturates at {@link Long#MIN_VALUE} and a refund never lifts the balance past the capacity.
     */
    private void balance(Limit limit, Limits.Parameters p, long amount, boolean hard) {
        String balance = e.name(ItemCodec.BALANCE + limit.name());
        if (correction && amount > 0 && DripClauses.pastFloor(guess, limit.name(), amount)) {
            e.set.add(balance + " = " + e.value(ItemCodec.number(Long.MIN_VALUE)));
            e.onLimits.add(balance + " < " + e.value(ItemCodec.number(
                    BigInteger.valueOf(Long.MIN_VALUE).add(BigInteger.valueOf(amount)))));
        } else if (correction && amount < 0 && fills(guess, limit.name(), amount, p.capacityMilli())) {
            // the refund brings the balance to the capacity (never above it), and leaves no session behind
            e.set.add(balance + " = " + e.value(ItemCodec.number(p.capacityMilli())));
            String floor = e.value(ItemCodec.number(BigInteger.valueOf(p.capacityMilli())
                    .add(BigInteger.valueOf(amount))));
            e.onLimits.add("(attribute_not_exists(" + balance + ") OR " + balance + " >= " + floor + ")");
            if (limit.resetAfter().isPresent()) {
                e.remove.add(e.name(ItemCodec.WINDOW + limit.name()));
            }
        } else if (correction) {
            // a balance not written yet is full; a refund then takes the branch above
            e.set.add(balance + " = if_not_exists(" + balance + ", " + e.value(ItemCodec.number(p.capacityMilli()))
                    + ") - " + e.value(ItemCodec.number(amount)));
            if (amount < 0) {
                e.onLimits.add(balance + " < " + e.value(ItemCodec.number(
                        BigInteger.valueOf(p.capacityMilli()).add(BigInteger.valueOf(amount)))));
            }
        } else {
            e.set.add(balance + " = if_not_exists(" + balance + ", " + e.value(ItemCodec.number(p.capacityMilli()))
                    + ") - " + e.value(ItemCodec.number(amount)));
            if (hard) {
                e.onLimits.add("(attribute_not_exists(" + balance + ") OR " + balance + " >= "
                        + e.value(ItemCodec.number(amount)) + ")");
            }
            if (limit.resetAfter().isPresent()) {
                String window = e.name(ItemCodec.WINDOW + limit.name());
                e.onItem.add("attribute_exists(" + window + ")");
                e.set.add(window + " = if_not_exists(" + window + ", " + nowValue + ")");
            }
        }
    }

    /**
     * What an admission that may create a missing item writes besides: the stamp, and the deadline and time to live
     * of the bucket it creates, kept when the item exists.
     */
    void creatable() {
        BucketState created = BucketState.fresh(debit.limits(), now)
                .debited(debit.limits(), debit.amountsMilli(), debit.countOnly(), debit.leaseId());
        long deadline = ItemTimes.deadline(debit.limits(), created, now, stampTtlMillis);
        e.set.add(e.name(ItemCodec.STAMP) + " = " + stampValue);
        e.set.add(e.ifNotExists(ItemCodec.DEADLINE, e.value(ItemCodec.number(deadline))));
        if (debit.defaultDerived() && !owing) {
            e.set.add(e.ifNotExists(ItemCodec.TTL, e.value(ItemCodec.number(ItemTimes.ttl(debit.limits(), deadline,
                    now)))));
        }
    }

    /** When a dripping limit may be left owing: the time to live that keeps the debt ({@link DripClauses#owedTtl}). */
    void owedTtl() {
        if (owing && debit.defaultDerived()) {
            DripClauses.owedTtl(e, debit, now, guess, stampTtlMillis);
        }
    }

    /**
     * Writes a correction's {@code marker} (when not {@code null}) on the condition that the item does not have it
     * yet, and removes the {@code landed} markers of this process's earlier corrections.
     */
    void marked(String marker, Queue<String> landed) {
        if (marker != null) {
            String name = e.name(ItemCodec.MARKER + marker);
            e.set.add(name + " = " + nowValue);
            e.onItem.add("attribute_not_exists(" + name + ")");
        }
        for (String old = landed == null ? null : landed.poll(); old != null; old = landed.poll()) {
            e.remove.add(e.name(ItemCodec.MARKER + old));
        }
    }

    /** The request to {@code table} for the item at {@code key}; {@code mayCreate}: also when there is no item. */
    UpdateItemRequest request(String table, Map<String, AttributeValue> key, boolean mayCreate) {
        String condition = mayCreate ? "(attribute_not_exists(PK) OR (" + e.onItem + "))" : e.onItem.toString();
        if (e.onLimits.length() > 0) {
            condition = condition + " AND " + e.onLimits;
        }
        return UpdateItemRequest.builder().tableName(table).key(key)
                .updateExpression(e.update())
                .conditionExpression(condition)
                .expressionAttributeNames(e.names())
                .expressionAttributeValues(e.values)
                .returnValues(returnsWholeItem ? ReturnValue.ALL_NEW : ReturnValue.UPDATED_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
    }

    /** Whether giving back {@code -amount} brings the guessed balance to {@code capacity} or past it. */
    private static boolean fills(BucketState guess, String name, long amount, long capacity) {
        return guess != null && BigInteger.valueOf(guess.balanceMilli(name)).subtract(BigInteger.valueOf(amount))
                .compareTo(BigInteger.valueOf(capacity)) >= 0;
    }

    /**
     * A limit the update takes nothing from, written as full at now when the item lacks it, as a whole write would:
     * the item then holds every limit of the bucket, so that after a change of the limits a balance is kept the
     * same way in both stores ({@code concepts.md}, "When the limits change"). A concurrency limit needs nothing:
     * its free slots follow from its holders and the capacity in force.
     */
    private void untouched(Limit limit) {
        if (limit.isConcurrency()) {
            return;
        }
        Limits.Parameters p = Limits.parametersAt(limit, now);
        if (p.drips()) {
            e.set.add(e.ifNotExists(ItemCodec.FULL_AT + limit.name(), e.value(ItemCodec.number(FullAt.grid(now, p)))));
            e.set.add(e.ifNotExists(ItemCodec.PARAMETERS + limit.name(), e.value(ItemCodec.parameters(p))));
        } else {
            e.set.add(e.ifNotExists(ItemCodec.BALANCE + limit.name(), e.value(ItemCodec.number(p.capacityMilli()))));
        }
    }

    /**
     * A concurrency slot in an update: taking one sets the lease's entry in the holders map, guarded by the map
     * having room (entries that expired count until a whole write drops them); giving one back removes it.
     */
    private void slot(Limit limit, long amount) {
        String holders = e.name(ItemCodec.HOLDERS + limit.name());
        if (debit.countOnly()) {
            e.add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(Math.max(amount, 0))));
            e.onItem.add("attribute_exists(" + holders + ")");
            return;
        }
        String slot = holders + "." + e.name(debit.leaseId());
        if (correction || amount < 0) {
            e.remove.add(slot);
            if (refund && amount < 0) {
                e.add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(amount)));
            }
            return;
        }
        e.set.add(slot + " = " + e.value(ItemCodec.number(now + limit.leaseTimeout().orElseThrow().toMillis())));
        e.add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(amount)));
        long slots = Limits.parametersAt(limit, now).capacityMilli() / Limits.MILLI;
        e.onItem.add(limit.isSoft() ? "attribute_exists(" + holders + ")"
                : "size(" + holders + ") < " + e.value(ItemCodec.number(slots)));
    }
}
