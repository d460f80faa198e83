package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.algorithm.FullAt;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.math.BigInteger;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * How {@link BucketWrites} writes a bucket: the conditional {@code UpdateItem} that applies a debit without reading
 * first (see {@link dev.zaelimiter.internal.algorithm.FullAt} for how a dripping limit is stored), the whole item for a
 * versioned rewrite, and what an item says about which of the two it needs.
 *
 * <p>Longer than most files on purpose: every condition and update expression a bucket write uses is built here,
 * next to the rules for when an update cannot be used, so that the item format is changed in one place.
 */
final class BucketItems {

    /** How long a correction's marker is kept by a whole rewrite. */
    private static final long MARKER_MILLIS = 60_000;

    /** Marks the item of a write whose failure returned none: it must be read (compared by identity, so its own map). */
    static final Map<String, AttributeValue> UNKNOWN = Collections.unmodifiableMap(new HashMap<>());

    private final String table;
    private final Keys keys;
    private final long stampTtlMillis;
    private final Map<List<Limit>, String> stamps = new ConcurrentHashMap<>();
    /** Markers of corrections that landed, to be removed by the next write to their bucket. */
    private final Map<BucketKey, Queue<String>> settled = new ConcurrentHashMap<>();
    /** The held totals of reserving limits this process last saw per bucket, to guess whether a bucket is full. */
    private final Map<BucketKey, Map<String, Long>> heldSeen = new ConcurrentHashMap<>();

    /**
     * What one process's write does to its hold of a reserving limit besides the call's own amount: retire
     * {@code used} milli-tokens it handed out, return {@code returned} unused ones, take {@code taken} new ones;
     * the hold attribute must still read {@code oldEntry} ({@code null}: absent) and becomes {@code newEntry}
     * ({@code null}: removed). It moves only the hold of {@code limit}, whatever other limits reserve.
     */
    record Exchange(String limit, String attribute, String oldEntry, long used, long returned, long taken, String newEntry) {
    }

    /** Remembers the held totals that {@code item} shows, for the next guess of whether the bucket is full. */
    void saw(BucketKey key, Map<String, AttributeValue> item) {
        if (item == null) {
            return;
        }
        Map<String, Long> held = null;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            if (e.getKey().startsWith(ItemCodec.HELD) && e.getValue().n() != null) {
                if (held == null) {
                    held = new HashMap<>();
                }
                held.put(e.getKey().substring(ItemCodec.HELD.length()), ItemCodec.longOf(e.getValue()));
            }
        }
        if (held != null) {
            if (heldSeen.size() > 10_000) {
                heldSeen.clear();
            }
            heldSeen.put(key, held);
        }
    }

    private long heldSeen(BucketKey key, String limit) {
        Map<String, Long> held = heldSeen.get(key);
        return held == null ? 0 : held.getOrDefault(limit, 0L);
    }

    BucketItems(String table, Keys keys, long stampTtlMillis) {
        this.table = table;
        this.keys = keys;
        this.stampTtlMillis = stampTtlMillis;
    }

    String table() {
        return table;
    }

    Map<String, AttributeValue> key(BucketDebit debit) {
        return keys.bucket(debit.key());
    }

    /** Remembers that the correction marked {@code marker} landed, so that the next write removes its marker. */
    void landed(BucketKey key, String marker) {
        settled.computeIfAbsent(key, k -> new ConcurrentLinkedQueue<>()).add(marker);
    }

    /**
     * Whether the item must be written whole rather than updated: it is of another configuration or format, its
     * deadline passed, it expired, the debit starts a session or takes a slot the stored form cannot take
     * (a holders map missing or holding expired slots), or a per-call override decides the call (the bucket is
     * then written as kept, see {@link BucketState#debitedKept}).
     */
    static boolean needsRewrite(Map<String, AttributeValue> item, BucketDebit debit, String stamp, long now,
            boolean correction) {
        if (debit.overridden() && !correction) {
            return true;
        }
        if (item == null) {
            return correction || debit.takesSlots();
        }
        AttributeValue storedStamp = item.get(ItemCodec.STAMP);
        AttributeValue deadline = item.get(ItemCodec.DEADLINE);
        if (expired(item, now) || pastHorizon(item, now) || storedStamp == null || !stamp.equals(storedStamp.s())
                || deadline == null || deadline.n() == null || ItemCodec.longOf(deadline) <= now
                || Holds.droppable(item, debit.limits(), now)) {
            return true;
        }
        for (Limit limit : debit.limits()) {
            long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
            if (amount == 0 || debit.countOnly()) {
                continue;
            }
            if (amount > 0 && limit.resetAfter().isPresent() && !item.containsKey(ItemCodec.WINDOW + limit.name())) {
                return true;
            }
            if (limit.isConcurrency()) {
                AttributeValue holders = item.get(ItemCodec.HOLDERS + limit.name());
                if (holders == null || !holders.hasM()) {
                    return true;
                }
                for (AttributeValue expiry : holders.m().values()) {
                    if (ItemCodec.longOf(expiry) <= now) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    static Map<String, AttributeValue> returned(ConditionalCheckFailedException e) {
        return e.hasItem() && !e.item().isEmpty() ? e.item() : UNKNOWN;
    }

    /**
     * The bucket in {@code item} refilled to {@code now}; a fresh one when there is none or its life ended
     * ({@link BucketLife}: full at or after the horizon written in it). The {@code ttl} only lets DynamoDB delete
     * an item no earlier than that; an item still there past it is read by the same rule (a bucket still owing is
     * never forgotten). An item written before horizons were (none in it) is fresh once its {@code ttl} passed.
     */
    static BucketState current(Map<String, AttributeValue> item, BucketDebit debit, long now) {
        return alive(item, debit, now) ? decoded(item, debit.limits(), now) : BucketState.fresh(debit.limits(), now);
    }

    /**
     * The bucket in {@code item} as of its last write, where {@link #current} at {@code now} finds it alive (else
     * fresh at {@code now}): what a refusal at {@code now}, which writes nothing, remembers, so that a later call
     * counts from that write, also one whose clock reads earlier than {@code now}.
     */
    static BucketState written(Map<String, AttributeValue> item, BucketDebit debit, long now) {
        return alive(item, debit, now) ? decoded(item, debit.limits(), ItemCodec.lastWrite(item))
                : BucketState.fresh(debit.limits(), now);
    }

    /** Whether {@code item} holds a bucket at {@code now}: it exists and its life has not ended. */
    private static boolean alive(Map<String, AttributeValue> item, BucketDebit debit, long now) {
        if (item == null) {
            return false;
        }
        AttributeValue ends = item.get(ItemCodec.ENDS);
        if (ends == null || ends.n() == null) {
            return !expired(item, now);
        }
        // the bucket's life is judged under the limits it is kept under, never a call's override
        long endsAfter = ItemCodec.longOf(ends);
        return endsAfter > now || !BucketLife.ended(endsAfter, decoded(item, debit.kept(), now), debit.kept(), now);
    }

    /** Whether the horizon written in {@code item} has come, so that its life may have ended. */
    private static boolean pastHorizon(Map<String, AttributeValue> item, long now) {
        AttributeValue ends = item.get(ItemCodec.ENDS);
        return ends != null && ends.n() != null && ItemCodec.longOf(ends) <= now;
    }

    /**
     * The bucket in {@code item} (which exists) refilled to {@code now} under {@code limits}, reserving limits capped
     * at what others can take; its instant is the later of {@code now} and the item's last write.
     */
    static BucketState decoded(Map<String, AttributeValue> item, List<Limit> limits, long now) {
        return Holds.capped(slotsAsFull(ItemCodec.bucket(item), item, limits).refilled(limits, now), item, limits,
                now);
    }

    /**
     * {@code stored} as {@code limits} take it: a limit of another kind whose item holds a concurrency limit's slots
     * (only a concurrency limit writes them, and the first write under other limits rewrites the item whole) is full
     * (at the capacity in force once refilled), its consumption kept, as in the in-memory store (a concurrency
     * limit's free slots are no balance).
     */
    private static BucketState slotsAsFull(BucketState stored, Map<String, AttributeValue> item, List<Limit> limits) {
        Map<String, LimitState> states = null;
        for (Limit limit : limits) {
            String name = limit.name();
            LimitState old = stored.limits().get(name);
            if (old != null && !limit.isConcurrency() && item.containsKey(ItemCodec.HOLDERS + name)) {
                if (states == null) {
                    states = new HashMap<>(stored.limits());
                }
                states.put(name, new LimitState(Long.MAX_VALUE, old.consumedMilli()));
            }
        }
        return states == null ? stored : new BucketState(stored.lastRefillMillis(), states);
    }

    static boolean expired(Map<String, AttributeValue> item, long now) {
        AttributeValue ttl = item.get(ItemCodec.TTL);
        return ttl != null && ItemCodec.longOf(ttl) * 1000 <= now;
    }

    static boolean consumes(BucketDebit debit) {
        for (long amount : debit.amountsMilli().values()) {
            if (amount != 0) {
                return true;
            }
        }
        return false;
    }

    static boolean hardConsumption(BucketDebit debit) {
        for (Limit limit : debit.limits()) {
            if (!limit.isSoft() && debit.amountsMilli().getOrDefault(limit.name(), 0L) > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * One conditional {@code UpdateItem} that applies {@code debit} at {@code now} without a read, or {@code null}
     * when it cannot be admitted (it asks a hard limit for more than its capacity). Every write is guarded by the
     * item's stamp and deadline; an admission may also create a missing item (unless it takes a slot, which needs
     * the holders map). Per dripping limit the write assumes, from {@code guess}, that the bucket is full (its
     * full-at point is set from now) or not (the point moves on), and the condition checks the assumption; a quota
     * balance starts at its capacity when missing.
     *
     * @param guess      the bucket as this process believes it is at {@code now}; {@code null}: assumed full
     * @param correction an adjustment or rollback: never refused for lack of tokens, a refund never lifts a balance
     *                   above the capacity in force, and the item must exist
     * @return the update, or {@code null} when the debit cannot be applied by one: it is refused, or a per-call
     *         override decides it (the item is then read and written whole)
     */
    UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction) {
        return update(debit, now, stamp, guess, correction, null);
    }

    /**
     * As {@link #update(BucketDebit, long, String, BucketState, boolean)}, also writing {@code marker} (when not
     * {@code null}) on the condition that the item does not have it yet, and removing the markers of corrections of
     * this process that have landed since its last write to the bucket.
     */
    UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction, String marker) {
        return update(debit, now, stamp, guess, correction, marker, null, null, false);
    }

    /**
     * As {@link #update(BucketDebit, long, String, BucketState, boolean, String)} for a correction; a {@code refund}
     * (what a refused call took, given back) also takes back the slots it counted as consumed.
     */
    UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess, String marker,
            boolean refund) {
        return update(debit, now, stamp, guess, true, marker, null, null, refund);
    }

    /**
     * As above; with {@code exchange}, its reserving limit also moves this process's hold, and
     * {@code full} (when not {@code null}) says whether the bucket is full, as read from the item, in place of a
     * guess.
     */
    UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction, String marker, Exchange exchange, Boolean full) {
        return update(debit, now, stamp, guess, correction, marker, exchange, full, false);
    }

    private UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction, String marker, Exchange exchange, Boolean full, boolean refund) {
        if (debit.overridden() && !correction) {
            return null;
        }
        Expression e = new Expression();
        StringJoiner set = new StringJoiner(", ", "SET ", "").setEmptyValue("");
        StringJoiner add = new StringJoiner(", ", "ADD ", "");
        StringJoiner remove = new StringJoiner(", ", "REMOVE ", "").setEmptyValue("");
        StringJoiner onItem = new StringJoiner(" AND ");
        StringJoiner onLimits = new StringJoiner(" AND ");
        boolean mayCreate = !correction && !debit.takesSlots();
        boolean owing = false;
        String nowValue = e.value(ItemCodec.number(now));
        String stampValue = e.value(AttributeValue.fromS(stamp));
        add.add(e.name(ItemCodec.VERSION) + " " + e.value(ItemCodec.number(1)));
        set.add(e.name(ItemCodec.LAST_REFILL) + " = " + nowValue);
        onItem.add(e.name(ItemCodec.STAMP) + " = " + stampValue);
        onItem.add(e.name(ItemCodec.DEADLINE) + " > " + nowValue);
        // a bucket past its horizon may have ended (then it is new): such a write is settled from the item
        String ends = e.name(ItemCodec.ENDS);
        onItem.add("(attribute_not_exists(" + ends + ") OR " + ends + " > " + nowValue + ")");
        set.add(ends + " = " + e.value(ItemCodec.number(BucketLife.endsAfter(debit.kept(), now))));
        if (guess == null) {
            // a process that knows nothing of the bucket (a first call, a reopened store) may be behind its last
            // write: it must count from that write, which the failure path reads, not move the item back in time
            onItem.add(e.name(ItemCodec.LAST_REFILL) + " <= " + nowValue);
        }
        for (Limit limit : debit.limits()) {
            long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
            Exchange x = exchange != null && exchange.limit().equals(limit.name()) ? exchange : null;
            if (amount == 0 && x == null) {
                untouched(e, limit, now, set);
                continue;
            }
            if (limit.isConcurrency()) {
                slotUpdate(e, debit, limit, amount, now, correction, refund, set, add, remove, onItem);
                continue;
            }
            long counted = x == null ? amount : amount + x.used();
            if (counted != 0) {
                add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(counted)));
            }
            Limits.Parameters p = Limits.parametersAt(limit, now);
            if (debit.countOnly()) {
                if (p.drips()) {
                    set.add(e.name(ItemCodec.PARAMETERS + limit.name()) + " = " + e.value(ItemCodec.parameters(p)));
                } else {
                    String balance = e.name(ItemCodec.BALANCE + limit.name());
                    set.add(balance + " = if_not_exists(" + balance + ", "
                            + e.value(ItemCodec.number(p.capacityMilli())) + ")");
                }
                continue;
            }
            boolean hard = !correction && !limit.isSoft() && amount > 0;
            owing |= p.drips() && amount > 0 && !hard;
            if (hard && amount > p.capacityMilli()) {
                return null;
            }
            if (correction && amount > 0 && limit.resetAfter().isPresent()) {
                // a debit outside a session starts one, which a whole rewrite does (and sets the deadline to its end)
                onItem.add("attribute_exists(" + e.name(ItemCodec.WINDOW + limit.name()) + ")");
            }
            if (p.drips() && limit.localReservations()) {
                boolean isFull = full != null ? full : fullFor(guess, heldSeen(debit.key(), limit.name()),
                        limit.name(), counted, p.capacityMilli());
                heldUpdate(e, limit.name(), p, amount, now, isFull, hard, x, set, remove, onLimits);
            } else if (p.drips()) {
                dripUpdate(e, limit.name(), p, amount, now, guess, hard, set, onLimits);
            } else if (correction && amount > 0 && pastFloor(guess, limit.name(), amount)) {
                String balance = e.name(ItemCodec.BALANCE + limit.name());
                set.add(balance + " = " + e.value(ItemCodec.number(Long.MIN_VALUE)));
                onLimits.add(balance + " < " + e.value(ItemCodec.number(
                        BigInteger.valueOf(Long.MIN_VALUE).add(BigInteger.valueOf(amount)))));
            } else if (correction && amount < 0 && fills(guess, limit.name(), amount, p.capacityMilli())) {
                // the refund brings the balance to the capacity (never above it), and leaves no session behind
                String balance = e.name(ItemCodec.BALANCE + limit.name());
                set.add(balance + " = " + e.value(ItemCodec.number(p.capacityMilli())));
                String floor = e.value(ItemCodec.number(BigInteger.valueOf(p.capacityMilli())
                        .add(BigInteger.valueOf(amount))));
                onLimits.add("(attribute_not_exists(" + balance + ") OR " + balance + " >= " + floor + ")");
                if (limit.resetAfter().isPresent()) {
                    remove.add(e.name(ItemCodec.WINDOW + limit.name()));
                }
            } else if (correction) {
                // a balance not written yet is full; a refund then takes the branch above
                String balance = e.name(ItemCodec.BALANCE + limit.name());
                set.add(balance + " = if_not_exists(" + balance + ", " + e.value(ItemCodec.number(p.capacityMilli()))
                        + ") - " + e.value(ItemCodec.number(amount)));
                if (amount < 0) {
                    onLimits.add(balance + " < " + e.value(ItemCodec.number(
                            BigInteger.valueOf(p.capacityMilli()).add(BigInteger.valueOf(amount)))));
                }
            } else {
                String balance = e.name(ItemCodec.BALANCE + limit.name());
                set.add(balance + " = if_not_exists(" + balance + ", " + e.value(ItemCodec.number(p.capacityMilli()))
                        + ") - " + e.value(ItemCodec.number(amount)));
                if (hard) {
                    onLimits.add("(attribute_not_exists(" + balance + ") OR " + balance + " >= "
                            + e.value(ItemCodec.number(amount)) + ")");
                }
                if (limit.resetAfter().isPresent()) {
                    String window = e.name(ItemCodec.WINDOW + limit.name());
                    onItem.add("attribute_exists(" + window + ")");
                    set.add(window + " = if_not_exists(" + window + ", " + nowValue + ")");
                }
            }
        }
        if (mayCreate) {
            BucketState created = BucketState.fresh(debit.limits(), now)
                    .debited(debit.limits(), debit.amountsMilli(), debit.countOnly(), debit.leaseId());
            long deadline = deadline(debit.limits(), created, now);
            set.add(e.name(ItemCodec.STAMP) + " = " + stampValue);
            set.add(ifNotExists(e, ItemCodec.DEADLINE, e.value(ItemCodec.number(deadline))));
            if (debit.defaultDerived() && !owing) {
                set.add(ifNotExists(e, ItemCodec.TTL, e.value(ItemCodec.number(ttl(debit.limits(), deadline, now)))));
            }
        }
        if (owing && debit.defaultDerived()) {
            owedTtl(e, debit, now, guess, set, onLimits);
        }
        if (marker != null) {
            String name = e.name(ItemCodec.MARKER + marker);
            set.add(name + " = " + nowValue);
            onItem.add("attribute_not_exists(" + name + ")");
        }
        Queue<String> landed = settled.get(debit.key());
        for (String old = landed == null ? null : landed.poll(); old != null; old = landed.poll()) {
            remove.add(e.name(ItemCodec.MARKER + old));
        }
        String condition = mayCreate ? "(attribute_not_exists(PK) OR (" + onItem + "))" : onItem.toString();
        if (onLimits.length() > 0) {
            condition = condition + " AND " + onLimits;
        }
        return UpdateItemRequest.builder().tableName(table).key(keys.bucket(debit.key()))
                .updateExpression(String.join(" ", set.toString(), add.toString(), remove.toString()).trim())
                .conditionExpression(condition)
                .expressionAttributeNames(e.names)
                .expressionAttributeValues(e.values)
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
    }

    /**
     * Moves the time to live of a write that may leave a dripping limit owing more than its capacity (a soft limit,
     * a correction), so that no expiry forgets the debt: every dripping limit is bounded by a condition (its full-at
     * point at most two capacities past what {@code guess} says it lacks, or one when it lacks nothing; a wrong guess
     * fails it and is settled from the item), and the item lives until the last of them is full again after this
     * write, plus the idle horizon.
     */
    private void owedTtl(Expression e, BucketDebit debit, long now, BucketState guess, StringJoiner set,
            StringJoiner onLimits) {
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
            onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " <= "
                    + e.value(ItemCodec.number(bound)) + ")");
            long amount = Math.max(0, debit.amountsMilli().getOrDefault(limit.name(), 0L));
            until = Math.max(until, BucketMath.saturatedAdd(now,
                    creditMillis(bound.add(BigInteger.valueOf(amount)).subtract(grid), p)));
        }
        set.add(e.name(ItemCodec.TTL) + " = " + e.value(ItemCodec.number(ttl(debit.limits(), until, now))));
    }

    /** Milliseconds a dripping limit takes to credit {@code milli} milli-tokens, saturating far in the future. */
    private static long creditMillis(BigInteger milli, Limits.Parameters p) {
        if (milli.signum() <= 0) {
            return 0;
        }
        BigInteger[] qr = milli.multiply(BigInteger.valueOf(p.refillPeriodMillis()))
                .divideAndRemainder(BigInteger.valueOf(p.refillAmountMilli()));
        BigInteger millis = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return millis.bitLength() < 62 ? millis.longValue() : Long.MAX_VALUE / 4;
    }

    /**
     * Whether taking {@code amount} would push the guessed balance below {@link Long#MIN_VALUE}: the write then sets
     * the balance to that floor, as the in-memory store saturates, instead of keeping debt no reader can see.
     */
    private static boolean pastFloor(BucketState guess, String name, long amount) {
        return guess != null && guess.balanceMilli(name) < Long.MIN_VALUE + amount;
    }

    /**
     * Whether a write of {@code counted} milli-tokens to a reserving limit takes the branch of a full bucket, guessed
     * from {@code guess} (others can take its balance) and the held total: a debit when the bucket lacks nothing; a
     * refund when it lacks less than the refund (as {@code dripUpdate} splits a refund), so that the branch's
     * condition holds whenever the guess is right.
     */
    private static boolean fullFor(BucketState guess, long held, String name, long counted, long capacity) {
        if (guess == null) {
            return true;
        }
        BigInteger lacking = BigInteger.valueOf(capacity).subtract(BigInteger.valueOf(guess.balanceMilli(name)))
                .subtract(BigInteger.valueOf(held));
        return counted < 0 ? lacking.compareTo(BigInteger.valueOf(counted).negate()) < 0 : lacking.signum() <= 0;
    }

    /** Whether giving back {@code -amount} brings the guessed balance to {@code capacity} or past it. */
    private static boolean fills(BucketState guess, String name, long amount, long capacity) {
        return guess != null && BigInteger.valueOf(guess.balanceMilli(name)).subtract(BigInteger.valueOf(amount))
                .compareTo(BigInteger.valueOf(capacity)) >= 0;
    }

    private static String ifNotExists(Expression e, String attribute, String value) {
        String name = e.name(attribute);
        return name + " = if_not_exists(" + name + ", " + value + ")";
    }

    /**
     * A limit the update takes nothing from, written as full at now when the item lacks it, as a whole write would:
     * the item then holds every limit of the bucket, so that after a change of the limits a balance is kept the
     * same way in both stores ({@code concepts.md}, "When the limits change"). A concurrency limit needs nothing:
     * its free slots follow from its holders and the capacity in force.
     */
    private static void untouched(Expression e, Limit limit, long now, StringJoiner set) {
        if (limit.isConcurrency()) {
            return;
        }
        Limits.Parameters p = Limits.parametersAt(limit, now);
        if (p.drips()) {
            set.add(ifNotExists(e, ItemCodec.FULL_AT + limit.name(), e.value(ItemCodec.number(FullAt.grid(now, p)))));
            set.add(ifNotExists(e, ItemCodec.PARAMETERS + limit.name(), e.value(ItemCodec.parameters(p))));
        } else {
            set.add(ifNotExists(e, ItemCodec.BALANCE + limit.name(), e.value(ItemCodec.number(p.capacityMilli()))));
        }
    }

    /**
     * A dripping limit's full-at point in an update. Taking from a full bucket sets the point to now's grid plus the
     * amount; taking from a busy one adds the amount, and a hard limit requires that the point stays within one
     * capacity of now. Giving back subtracts, or sets the point to now when that would go past it (full).
     */
    private static void dripUpdate(Expression e, String name, Limits.Parameters p, long amount, long now,
            BucketState guess, boolean hard, StringJoiner set, StringJoiner onLimits) {
        String fullAt = e.name(ItemCodec.FULL_AT + name);
        BigInteger grid = FullAt.grid(now, p);
        BigInteger amountMilli = BigInteger.valueOf(amount);
        set.add(e.name(ItemCodec.PARAMETERS + name) + " = " + e.value(ItemCodec.parameters(p)));
        long balance = guess == null ? p.capacityMilli() : guess.balanceMilli(name);
        if (amount > 0 && !hard && pastFloor(guess, name, amount)) {
            BigInteger floorPoint = grid.add(BigInteger.valueOf(p.capacityMilli()))
                    .subtract(BigInteger.valueOf(Long.MIN_VALUE));
            onLimits.add(fullAt + " > " + e.value(ItemCodec.number(floorPoint.subtract(amountMilli))));
            set.add(fullAt + " = " + e.value(ItemCodec.number(floorPoint)));
        } else if (amount > 0 && balance >= p.capacityMilli()) {
            onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " <= " + e.value(ItemCodec.number(grid))
                    + ")");
            set.add(fullAt + " = " + e.value(ItemCodec.number(grid.add(amountMilli))));
        } else if (amount > 0) {
            onLimits.add(fullAt + " > " + e.value(ItemCodec.number(grid)));
            if (hard) {
                onLimits.add(fullAt + " <= " + e.value(ItemCodec.number(
                        grid.add(BigInteger.valueOf(p.capacityMilli())).subtract(amountMilli))));
            }
            set.add(fullAt + " = " + fullAt + " + " + e.value(ItemCodec.number(amountMilli)));
        } else {
            BigInteger refund = amountMilli.negate();
            BigInteger floor = grid.add(refund);
            boolean deep = BigInteger.valueOf(p.capacityMilli()).subtract(BigInteger.valueOf(balance))
                    .compareTo(refund) >= 0;
            if (deep) {
                onLimits.add(fullAt + " >= " + e.value(ItemCodec.number(floor)));
                set.add(fullAt + " = " + fullAt + " - " + e.value(ItemCodec.number(refund)));
            } else {
                onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " < "
                        + e.value(ItemCodec.number(floor)) + ")");
                set.add(fullAt + " = " + e.value(ItemCodec.number(grid)));
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
    private static void heldUpdate(Expression e, String name, Limits.Parameters p, long amount, long now,
            boolean full, boolean hard, Exchange x, StringJoiner set, StringJoiner remove, StringJoiner onLimits) {
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
        set.add(e.name(ItemCodec.PARAMETERS + name) + " = " + e.value(ItemCodec.parameters(p)));
        if (debit.signum() < 0) {
            BigInteger refund = debit.negate();
            if (!full) {
                onLimits.add(fullAt + " >= " + e.value(ItemCodec.number(grid.add(refund))));
                set.add(fullAt + " = " + fullAt + " - " + e.value(ItemCodec.number(refund)));
                set.add(heldPoint + " = " + heldPoint + " - " + e.value(ItemCodec.number(refund)));
            } else {
                String held = e.name(ItemCodec.HELD + name);
                String zero = e.value(ItemCodec.number(0));
                onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " < "
                        + e.value(ItemCodec.number(grid.add(refund))) + ")");
                set.add(fullAt + " = " + e.value(ItemCodec.number(grid)));
                set.add(heldPoint + " = if_not_exists(" + held + ", " + zero + ") + "
                        + e.value(ItemCodec.number(grid)));
                set.add(held + " = if_not_exists(" + held + ", " + zero + ")");
            }
        } else if (full) {
            String held = e.name(ItemCodec.HELD + name);
            String zero = e.value(ItemCodec.number(0));
            onLimits.add("(attribute_not_exists(" + fullAt + ") OR " + fullAt + " <= " + e.value(ItemCodec.number(grid))
                    + ")");
            if (checked) {
                onLimits.add("(attribute_not_exists(" + held + ") OR " + held + " <= "
                        + e.value(ItemCodec.number(capacity.subtract(need))) + ")");
            }
            set.add(fullAt + " = " + e.value(ItemCodec.number(grid.add(debit))));
            set.add(held + " = if_not_exists(" + held + ", " + zero + ") + " + e.value(ItemCodec.number(heldChange)));
            set.add(heldPoint + " = if_not_exists(" + held + ", " + zero + ") + "
                    + e.value(ItemCodec.number(grid.add(debit).add(heldChange))));
        } else {
            String held = e.name(ItemCodec.HELD + name);
            onLimits.add(fullAt + " > " + e.value(ItemCodec.number(grid)));
            if (checked) {
                onLimits.add(heldPoint + " <= " + e.value(ItemCodec.number(grid.add(capacity).subtract(need))));
            }
            set.add(fullAt + " = " + fullAt + " + " + e.value(ItemCodec.number(debit)));
            set.add(held + " = " + held + " + " + e.value(ItemCodec.number(heldChange)));
            set.add(heldPoint + " = " + heldPoint + " + " + e.value(ItemCodec.number(debit.add(heldChange))));
        }
        if (x != null) {
            String hold = e.name(x.attribute());
            onLimits.add(x.oldEntry() == null ? "attribute_not_exists(" + hold + ")"
                    : hold + " = " + e.value(AttributeValue.fromS(x.oldEntry())));
            if (x.newEntry() == null) {
                remove.add(hold);
            } else {
                set.add(hold + " = " + e.value(AttributeValue.fromS(x.newEntry())));
            }
        }
    }

    /**
     * A concurrency slot in an update: taking one sets the lease's entry in the holders map, guarded by the map
     * having room (entries that expired count until a whole write drops them); giving one back removes it.
     */
    private static void slotUpdate(Expression e, BucketDebit debit, Limit limit, long amount, long now,
            boolean correction, boolean refund, StringJoiner set, StringJoiner add, StringJoiner remove,
            StringJoiner condition) {
        String holders = e.name(ItemCodec.HOLDERS + limit.name());
        if (debit.countOnly()) {
            add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(Math.max(amount, 0))));
            condition.add("attribute_exists(" + holders + ")");
            return;
        }
        String slot = holders + "." + e.name(debit.leaseId());
        if (correction || amount < 0) {
            remove.add(slot);
            if (refund && amount < 0) {
                add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(amount)));
            }
            return;
        }
        set.add(slot + " = " + e.value(ItemCodec.number(now + limit.leaseTimeout().orElseThrow().toMillis())));
        add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(amount)));
        long slots = Limits.parametersAt(limit, now).capacityMilli() / Limits.MILLI;
        condition.add(limit.isSoft() ? "attribute_exists(" + holders + ")"
                : "size(" + holders + ") < " + e.value(ItemCodec.number(slots)));
    }

    /**
     * The whole bucket as a conditional put: written only if its version is still that of {@code previous} (or,
     * without one, if there is no item), with a correction's {@code marker} when not {@code null}.
     */
    PutItemRequest put(BucketDebit debit, BucketState state, String stamp, long now,
            Map<String, AttributeValue> previous, String marker) {
        Map<String, AttributeValue> item = bucketItem(debit, state, stamp, now, previous);
        if (marker != null) {
            item.put(ItemCodec.MARKER + marker, ItemCodec.number(now));
        }
        return PutItemRequest.builder().tableName(table).item(item)
                .conditionExpression(versionCondition(previous))
                .expressionAttributeNames(versionNames(previous))
                .expressionAttributeValues(versionValues(previous))
                .build();
    }

    /** The whole bucket item as the slow path writes it, under the limits the bucket is kept under. */
    Map<String, AttributeValue> bucketItem(BucketDebit debit, BucketState state, String stamp, long now,
            Map<String, AttributeValue> previous) {
        Map<String, AttributeValue> item = new HashMap<>(keys.bucket(debit.key()));
        ItemCodec.putBucket(item, state, debit.kept());
        Holds.put(item, state, debit.kept(), previous, now);
        long deadline = deadline(debit.kept(), state, now);
        item.put(ItemCodec.VERSION, ItemCodec.number(ItemCodec.version(previous) + 1));
        item.put(ItemCodec.STAMP, AttributeValue.fromS(stamp));
        item.put(ItemCodec.DEADLINE, ItemCodec.number(deadline));
        item.put(ItemCodec.ENDS, ItemCodec.number(BucketLife.endsAfter(debit.kept(), state.lastRefillMillis())));
        if (previous != null) {
            previous.forEach((name, value) -> {
                if (name.startsWith(ItemCodec.MARKER) && value.n() != null
                        && ItemCodec.longOf(value) > now - MARKER_MILLIS) {
                    item.put(name, value);
                }
            });
        }
        if (debit.defaultDerived()) {
            item.put(ItemCodec.TTL, ItemCodec.number(ttl(debit.kept(), fullAgain(debit.kept(), state, deadline), now)));
        }
        return item;
    }

    /** The later of {@code deadline} and the instant every dripping limit of {@code state} is full again. */
    private static long fullAgain(List<Limit> limits, BucketState state, long deadline) {
        long until = deadline;
        long at = state.lastRefillMillis();
        for (Limit limit : limits) {
            Limits.Parameters p = Limits.parametersAt(limit, at);
            LimitState s = state.limits().get(limit.name());
            if (s != null && p.drips() && !limit.isConcurrency() && s.balanceMilli() < p.capacityMilli()) {
                BigInteger lacking = BigInteger.valueOf(p.capacityMilli()).subtract(BigInteger.valueOf(s.balanceMilli()));
                until = Math.max(until, BucketMath.saturatedAdd(at, creditMillis(lacking, p)));
            }
        }
        return until;
    }

    /** When (epoch seconds) an idle default-derived bucket may expire: it is surely full again by then. */
    private static long ttl(List<Limit> limits, long deadline, long now) {
        return BucketMath.saturatedAdd(deadline, BucketLife.idleHorizon(limits, now)) / 1000 + 1;
    }

    /**
     * Until when the fast path may trust the stored state: the stamp's time to live, and the next instant any
     * limit's parameters change, resets, or ends a session.
     */
    private long deadline(List<Limit> limits, BucketState state, long now) {
        long deadline = now + stampTtlMillis;
        for (Limit limit : limits) {
            deadline = Math.min(deadline, Limits.nextChangeAfter(limit, now));
            deadline = Math.min(deadline, Limits.nextResetAfter(limit, now));
            LimitState s = state.limits().get(limit.name());
            if (s != null && s.inWindow() && limit.resetAfter().isPresent()) {
                deadline = Math.min(deadline, s.windowStartMillis() + limit.resetAfter().get().toMillis());
            }
        }
        return Math.max(deadline, now + 1);
    }

    static String versionCondition(Map<String, AttributeValue> previous) {
        return previous == null ? "attribute_not_exists(PK)" : "#v = :v";
    }

    static Map<String, String> versionNames(Map<String, AttributeValue> previous) {
        return previous == null ? null : Map.of("#v", ItemCodec.VERSION);
    }

    static Map<String, AttributeValue> versionValues(Map<String, AttributeValue> previous) {
        return previous == null ? null : Map.of(":v", ItemCodec.number(ItemCodec.version(previous)));
    }

    String stamp(List<Limit> limits) {
        String stamp = stamps.get(limits);
        if (stamp == null) {
            if (stamps.size() > 10_000) {
                stamps.clear();
            }
            stamp = ItemCodec.stamp(limits);
            stamps.put(limits, stamp);
        }
        return stamp;
    }

    /** Placeholder names and values for one expression. */
    static final class Expression {
        final Map<String, String> names = new HashMap<>();
        final Map<String, AttributeValue> values = new HashMap<>();

        String name(String attribute) {
            String placeholder = "#n" + names.size();
            names.put(placeholder, attribute);
            return placeholder;
        }

        String value(AttributeValue value) {
            String placeholder = ":v" + values.size();
            values.put(placeholder, value);
            return placeholder;
        }
    }
}
