package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a stored bucket item says: the bucket it holds at an instant (refilled, reserving limits capped at what
 * others can take), whether its life has ended, and whether a write must replace it whole rather than update it.
 */
final class StoredBucket {

    /** Marks the item of a write whose failure returned none: it must be read (compared by identity: its own map). */
    static final Map<String, AttributeValue> UNKNOWN = Collections.unmodifiableMap(new HashMap<>());

    private StoredBucket() {
    }

    /**
     * Whether the item must be written whole rather than updated: there is none, it is of another configuration or
     * format, its
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
            return true;
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

    /** The item a failed conditional write returned, or {@link #UNKNOWN} when it returned none. */
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
}
