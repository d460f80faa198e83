package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The requests with which {@link BucketWrites} writes a bucket: the conditional update that applies a debit without
 * reading first (built by {@link BucketUpdate}) and the whole item for a versioned rewrite; and what this process
 * keeps between writes for them (stamps, the held totals it last saw, the markers of corrections that landed). What
 * a stored item says, and whether it needs a rewrite, is {@link StoredBucket}.
 */
final class BucketItems {

    /** How long a correction's marker is kept by a whole rewrite. */
    private static final long MARKER_MILLIS = 60_000;

    private final String table;
    private final Keys keys;
    private final long stampTtlMillis;
    private final Map<List<Limit>, String> stamps = new ConcurrentHashMap<>();
    /** Markers of corrections that landed, to be removed by the next write to their bucket. */
    private final Map<BucketKey, Queue<String>> settled = new ConcurrentHashMap<>();
    /** The held totals of reserving limits this process last saw per bucket, to guess whether a bucket is full. */
    private final Map<BucketKey, Map<String, Long>> heldSeen = new ConcurrentHashMap<>();

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

    /** Whether {@code debit} moves any limit. */
    static boolean consumes(BucketDebit debit) {
        for (long amount : debit.amountsMilli().values()) {
            if (amount != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * One conditional {@code UpdateItem} ({@link BucketUpdate}) that applies {@code debit} at {@code now} without a
     * read, or {@code null} when it cannot be admitted (it asks a hard limit for more than its capacity). Every write
     * is guarded by the item's stamp and deadline; an admission without a {@code guess} may also create a missing
     * item (unless it takes a slot, which needs the holders map); with one the item is known to exist, and should it
     * have gone since, the write is refused and the item is written whole. Per dripping limit the write assumes, from {@code guess}, that the bucket
     * is full (its full-at point is set from now) or not (the point moves on), and the condition checks the
     * assumption; a quota balance starts at its capacity when missing.
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
     * An admission's update, as {@link #update(BucketDebit, long, String, BucketState, boolean)}, from a
     * {@code guess} this process learned at {@code learnedAt}. Knowledge as old as the item's deadline (the stamp's
     * time to live) or the shortest idle horizon no longer shows that the item exists (DynamoDB's time to live may
     * have deleted it): the update then may create it, as for an unknown bucket, so that a swept bucket costs one
     * request, not a refused update, a read and a put.
     */
    UpdateItemRequest admission(BucketDebit debit, long now, String stamp, BucketState guess, long learnedAt) {
        return admission(debit, now, stamp, guess, learnedAt, 0);
    }

    /**
     * As {@link #admission(BucketDebit, long, String, BucketState, long)}, for a call that may book up to
     * {@code horizonMillis} ahead ({@link BucketWrites#horizon}; 0 books nothing).
     */
    UpdateItemRequest admission(BucketDebit debit, long now, String stamp, BucketState guess, long learnedAt,
            long horizonMillis) {
        boolean unknown = guess == null
                || now - learnedAt >= Math.min(stampTtlMillis, BucketLife.MIN_HORIZON_MILLIS);
        return update(debit, now, stamp, guess, false, null, null, null, false, unknown, horizonMillis);
    }

    /**
     * As {@link #update(BucketDebit, long, String, BucketState, boolean)}, also writing {@code marker} (when not
     * {@code null}) on the condition that the item does not have it yet, and removing the markers of corrections of
     * this process that have landed since its last write to the bucket.
     */
    UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction, String marker) {
        return update(debit, now, stamp, guess, correction, marker, null, null, false, guess == null, 0);
    }

    /**
     * As {@link #update(BucketDebit, long, String, BucketState, boolean, String)} for a correction; a {@code refund}
     * (what a refused call took, given back) also takes back the slots it counted as consumed.
     */
    UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess, String marker,
            boolean refund) {
        return update(debit, now, stamp, guess, true, marker, null, null, refund, false, 0);
    }

    /**
     * As above; with {@code exchange}, its reserving limit also moves this process's hold, and
     * {@code full} (when not {@code null}) says whether the bucket is full, as read from the item, in place of a
     * guess.
     */
    UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction, String marker, Holds.Exchange exchange, Boolean full) {
        return update(debit, now, stamp, guess, correction, marker, exchange, full, false, true, 0);
    }

    /**
     * @param unknown whether the item may be missing as far as this process knows: an admission then may create it.
     *                A guess of this process (the item existed at its last write) leaves the creating clauses out;
     *                should the item have gone since, the write is refused and the item is written whole.
     */
    private UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction, String marker, Holds.Exchange exchange, Boolean full, boolean refund,
            boolean unknown, long horizonMillis) {
        if (debit.overridden() && !correction) {
            return null;
        }
        BucketUpdate update = new BucketUpdate(debit, now, stamp, guess, correction, refund, stampTtlMillis,
                horizonMillis);
        update.guarded();
        Map<String, Long> held = heldSeen.get(debit.key());
        for (Limit limit : debit.limits()) {
            Holds.Exchange x = exchange != null && exchange.limit().equals(limit.name()) ? exchange : null;
            if (!update.limit(limit, x, full, held)) {
                return null;
            }
        }
        boolean mayCreate = unknown && !correction && !debit.takesSlots();
        if (mayCreate) {
            update.creatable();
        }
        update.owedTtl();
        update.marked(marker, settled.get(debit.key()));
        return update.request(table, keys.bucket(debit.key()), mayCreate);
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
        long deadline = ItemTimes.deadline(debit.kept(), state, now, stampTtlMillis);
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
            item.put(ItemCodec.TTL, ItemCodec.number(ItemTimes.ttl(debit.kept(),
                    ItemTimes.fullAgain(debit.kept(), state, deadline), now)));
        }
        return item;
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
}
