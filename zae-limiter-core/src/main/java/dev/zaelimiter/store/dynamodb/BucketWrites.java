package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.algorithm.BucketMath;
import dev.zaelimiter.algorithm.FullAt;
import dev.zaelimiter.algorithm.BucketState;
import dev.zaelimiter.algorithm.LimitState;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The bucket paths of {@link DynamoDbStore}. Every decision is made by {@link BucketState}; this class moves state in
 * and out of items and chooses the cheapest request that applies it exactly.
 *
 * <p>A dripping limit is stored as the point at which it is full again ({@link dev.zaelimiter.algorithm.FullAt}),
 * so an admission is one conditional {@code UpdateItem} whether the bucket was idle (the point is set from now) or
 * busy (the point moves on), with no read first. Which of the two a write assumes comes from what this process last
 * learned of the bucket; a wrong guess fails its condition, the item is read (real DynamoDB returns it with the
 * failure), and the write is repeated with the right one. A bucket this process saw short is refused locally until
 * its balance, as last seen and refilled since, would cover the call: a refusal then costs no request and can only
 * err towards refusing. A process that loses a race for a bucket's last tokens leaves it alone for a short, jittered
 * pause, so that processes saturating one bucket do not pay a refused write for every token.
 */
final class BucketWrites {

    private static final Logger log = LoggerFactory.getLogger(BucketWrites.class);

    /** Attempts under contention before giving up. */
    private static final int MAX_ATTEMPTS = 16;
    private static final long HOUR = 3_600_000L;
    /** How long a refusal learned from the store is trusted without asking it again. */
    private static final long TRUST_MILLIS = 1000;
    /** The longest pause after losing a race for a bucket's last tokens. */
    private static final long MAX_PAUSE_MILLIS = 250;
    private static final int MAX_KNOWN = 100_000;
    private static final int CORRECTION_ATTEMPTS = 4;
    /** How long a correction's marker is kept by a whole rewrite. */
    private static final long MARKER_MILLIS = 60_000;

    private final DynamoDbClient client;
    private final String table;
    private final Keys keys;
    private final long stampTtlMillis;
    private final ExecutorService executor;
    private final Map<List<Limit>, String> stamps = new ConcurrentHashMap<>();
    private final Map<BucketKey, Known> known = new ConcurrentHashMap<>();
    /** Markers of corrections that landed, to be removed by the next write to their bucket. */
    private final Map<BucketKey, Queue<String>> settled = new ConcurrentHashMap<>();

    /** One bucket's outcome: the state after the debit when admitted, before it when not. */
    record Outcome(boolean admitted, BucketState state) {
    }

    /**
     * What this process last learned of a bucket: its state at {@code learnedAt} (less what calls of this process
     * have taken since, while they are in flight), and until when it stays away after losing a race.
     */
    private record Known(String stamp, BucketState state, long learnedAt, long pausedUntil) {
    }

    BucketWrites(DynamoDbClient client, String table, Keys keys, long stampTtlMillis, ExecutorService executor) {
        this.client = client;
        this.table = table;
        this.keys = keys;
        this.stampTtlMillis = stampTtlMillis;
        this.executor = executor;
    }

    // ---- one bucket

    AcquireResult acquire(BucketDebit debit, long now) {
        Outcome outcome = acquireOne(debit, now);
        return new AcquireResult(outcome.admitted(), List.of(new BucketSnapshot(debit.key(), outcome.state())));
    }

    /** Refuses locally when what this process knows allows it, else writes once, and settles a wrong guess. */
    Outcome acquireOne(BucketDebit debit, long now) {
        String stamp = stamp(debit.limits());
        Known k = known.get(debit.key());
        BucketState estimate = null;
        if (k != null && k.stamp().equals(stamp)) {
            estimate = k.state().refilled(debit.limits(), now);
            BucketState local = localRefusal(debit, k, estimate, now);
            if (local != null) {
                return new Outcome(false, local);
            }
        }
        UpdateItemRequest request = consumes(debit) ? update(debit, now, stamp, estimate, false) : null;
        if (request == null) {
            return settle(debit, now, stamp, UNKNOWN, false);
        }
        boolean expected = estimate != null && estimate.admits(debit.limits(), debit.amountsMilli());
        if (expected && !debit.countOnly()) {
            reserve(debit, stamp, now);
        }
        try {
            return admitted(debit, stamp, now, client.updateItem(request));
        } catch (ConditionalCheckFailedException e) {
            return settle(debit, now, stamp, returned(e), expected);
        }
    }

    /**
     * The state to refuse with, without asking the store, or {@code null} to ask it. Only hard debits that take no
     * concurrency slot are refused locally: while paused, when the balances last seen do not cover the call; within
     * {@link #TRUST_MILLIS} of learning them, when they do not cover it even refilled to now.
     */
    private static BucketState localRefusal(BucketDebit debit, Known k, BucketState estimate, long now) {
        if (debit.countOnly() || debit.takesSlots() || !hardConsumption(debit)) {
            return null;
        }
        if (now < k.pausedUntil() && !k.state().admits(debit.limits(), debit.amountsMilli())) {
            return new BucketState(Math.max(now, k.state().lastRefillMillis()), k.state().limits());
        }
        if (now < k.learnedAt() + TRUST_MILLIS && !estimate.admits(debit.limits(), debit.amountsMilli())) {
            return estimate;
        }
        return null;
    }

    /** {@link #localRefusal(BucketDebit, Known, BucketState, long)} from what this process knows, if anything. */
    private BucketState localRefusal(BucketDebit debit, long now) {
        Known k = known.get(debit.key());
        return k != null && k.stamp().equals(stamp(debit.limits()))
                ? localRefusal(debit, k, k.state().refilled(debit.limits(), now), now) : null;
    }

    /** What this process knows of the bucket, refilled to {@code now}; {@code null} when it knows nothing current. */
    private BucketState estimate(BucketDebit debit, long now) {
        Known k = known.get(debit.key());
        return k != null && k.stamp().equals(stamp(debit.limits())) ? k.state().refilled(debit.limits(), now) : null;
    }

    /** Takes the debit from what this process knows, so that its other threads do not count on the same tokens. */
    private void reserve(BucketDebit debit, String stamp, long now) {
        known.computeIfPresent(debit.key(), (key, k) -> k.stamp().equals(stamp)
                ? new Known(stamp, k.state().refilled(debit.limits(), now)
                        .debited(debit.limits(), debit.amountsMilli(), false), k.learnedAt(), k.pausedUntil())
                : k);
    }

    private void learn(BucketKey key, String stamp, BucketState state, long now, long pausedUntil) {
        if (known.size() >= MAX_KNOWN) {
            known.clear();
        }
        known.put(key, new Known(stamp, state, now, pausedUntil));
    }

    /** Forgets what this process knows of a bucket (it was deleted, or written by a path that returns nothing). */
    void forget(BucketKey key) {
        known.remove(key);
    }

    private Outcome admitted(BucketDebit debit, String stamp, long now, UpdateItemResponse response) {
        BucketState state = ItemCodec.bucket(response.attributes(), now).refilled(debit.limits(), now);
        learn(debit.key(), stamp, state, now, 0);
        return new Outcome(true, state);
    }

    /** Marks the item of a write whose failure returned none: it must be read. */
    private static final Map<String, AttributeValue> UNKNOWN = Map.of();

    /**
     * Decides from the item itself (as a failed write returned it, or read now) and writes again with exact guesses;
     * a bucket whose stored form cannot take an update (another configuration, a passed deadline, a session to
     * start, expired slots to drop) is written whole, conditioned on its version. Lost races back off with jitter.
     *
     * @param item     the item, {@code null} when there is none, {@link #UNKNOWN} when it must be read
     * @param expected whether this process expected the write to be admitted (a refusal then means it lost a race)
     */
    private Outcome settle(BucketDebit debit, long now, String stamp, Map<String, AttributeValue> item,
            boolean expected) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (attempt > 1) {
                backOff(attempt);
            }
            if (item == UNKNOWN) {
                item = getItem(debit);
            }
            BucketState state = current(item, debit, now);
            if (!debit.countOnly() && !state.admits(debit.limits(), debit.amountsMilli())) {
                learn(debit.key(), stamp, state, now, expected ? now + pause(debit, now) : 0);
                return new Outcome(false, state);
            }
            if (needsRewrite(item, debit, stamp, now, false)) {
                BucketState next = state.debited(debit.limits(), debit.amountsMilli(), debit.countOnly(),
                        debit.leaseId());
                try {
                    putBucket(debit, next, stamp, now, item);
                    learn(debit.key(), stamp, next, now, 0);
                    return new Outcome(true, next);
                } catch (ConditionalCheckFailedException lost) {
                    item = UNKNOWN;
                    continue;
                }
            }
            try {
                return admitted(debit, stamp, now, client.updateItem(update(debit, now, stamp, state, false)));
            } catch (ConditionalCheckFailedException lost) {
                item = returned(lost);
            }
        }
        throw new StoreUnavailableException("DynamoDB store gave up on bucket " + debit.key() + " after "
                + MAX_ATTEMPTS + " contended attempts", null);
    }

    /**
     * How long to leave a bucket alone after losing a race for its last tokens: a jittered share of
     * {@link #MAX_PAUSE_MILLIS}, and never more than a quarter of the time its fastest hard limit takes to fill,
     * so that the bucket cannot fill up (and tokens go unused) while every process waits.
     */
    private static long pause(BucketDebit debit, long now) {
        long pause = MAX_PAUSE_MILLIS;
        for (Limit limit : debit.limits()) {
            Limit.Parameters p = limit.parametersAt(now);
            if (!limit.isSoft() && p.drips()) {
                double fill = (double) p.capacityMilli() * p.refillPeriodMillis() / p.refillAmountMilli();
                pause = Math.min(pause, (long) (fill / 4));
            }
        }
        return pause <= 1 ? pause : pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
    }

    /** Sleeps a few jittered milliseconds, more after each lost race, so that contenders spread out. */
    private static void backOff(int attempt) {
        long bound = Math.min(1L << Math.min(attempt, 5), 32);
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(bound + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while retrying a contended bucket", e);
        }
    }

    /**
     * Whether the item must be written whole rather than updated: it is of another configuration or format, its
     * deadline passed, it expired, or the debit starts a session or takes a slot the stored form cannot take
     * (a holders map missing or holding expired slots).
     */
    private static boolean needsRewrite(Map<String, AttributeValue> item, BucketDebit debit, String stamp, long now,
            boolean correction) {
        if (item == null) {
            return correction || debit.takesSlots();
        }
        AttributeValue storedStamp = item.get(ItemCodec.STAMP);
        AttributeValue deadline = item.get(ItemCodec.DEADLINE);
        if (expired(item, now) || storedStamp == null || !stamp.equals(storedStamp.s()) || deadline == null
                || ItemCodec.longOf(deadline) <= now) {
            return true;
        }
        for (Limit limit : debit.limits()) {
            long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
            if (amount == 0 || debit.countOnly()) {
                continue;
            }
            if (!correction && amount > 0 && limit.resetAfter().isPresent()
                    && !item.containsKey(ItemCodec.WINDOW + limit.name())) {
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

    private static Map<String, AttributeValue> returned(ConditionalCheckFailedException e) {
        return e.hasItem() && !e.item().isEmpty() ? e.item() : UNKNOWN;
    }

    /** The bucket in {@code item} refilled to {@code now}; a fresh one when there is none or it has expired. */
    private static BucketState current(Map<String, AttributeValue> item, BucketDebit debit, long now) {
        if (item == null || expired(item, now)) {
            return BucketState.fresh(debit.limits(), now);
        }
        return ItemCodec.bucket(item, now).refilled(debit.limits(), now);
    }

    private static boolean expired(Map<String, AttributeValue> item, long now) {
        AttributeValue ttl = item.get(ItemCodec.TTL);
        return ttl != null && ItemCodec.longOf(ttl) * 1000 <= now;
    }

    private static boolean consumes(BucketDebit debit) {
        for (long amount : debit.amountsMilli().values()) {
            if (amount != 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean hardConsumption(BucketDebit debit) {
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
     */
    private UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction) {
        return update(debit, now, stamp, guess, correction, null);
    }

    /**
     * As {@link #update(BucketDebit, long, String, BucketState, boolean)}, also writing {@code marker} (when not
     * {@code null}) on the condition that the item does not have it yet, and removing the markers of corrections of
     * this process that have landed since its last write to the bucket.
     */
    private UpdateItemRequest update(BucketDebit debit, long now, String stamp, BucketState guess,
            boolean correction, String marker) {
        Expression e = new Expression();
        StringJoiner set = new StringJoiner(", ", "SET ", "").setEmptyValue("");
        StringJoiner add = new StringJoiner(", ", "ADD ", "");
        StringJoiner remove = new StringJoiner(", ", "REMOVE ", "").setEmptyValue("");
        StringJoiner onItem = new StringJoiner(" AND ");
        StringJoiner onLimits = new StringJoiner(" AND ");
        boolean mayCreate = !correction && !debit.takesSlots();
        String nowValue = e.value(ItemCodec.number(now));
        String stampValue = e.value(AttributeValue.fromS(stamp));
        add.add(e.name(ItemCodec.VERSION) + " " + e.value(ItemCodec.number(1)));
        onItem.add(e.name(ItemCodec.STAMP) + " = " + stampValue);
        onItem.add(e.name(ItemCodec.DEADLINE) + " > " + nowValue);
        for (Limit limit : debit.limits()) {
            long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
            if (amount == 0) {
                continue;
            }
            if (limit.isConcurrency()) {
                slotUpdate(e, debit, limit, amount, now, correction, set, add, remove, onItem);
                continue;
            }
            add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(amount)));
            if (debit.countOnly()) {
                continue;
            }
            Limit.Parameters p = limit.parametersAt(now);
            boolean hard = !correction && !limit.isSoft() && amount > 0;
            if (hard && amount > p.capacityMilli()) {
                return null;
            }
            if (p.drips()) {
                dripUpdate(e, limit.name(), p, amount, now, guess, hard, set, onLimits);
            } else if (correction) {
                String balance = e.name(ItemCodec.BALANCE + limit.name());
                add.add(balance + " " + e.value(ItemCodec.number(BigInteger.valueOf(amount).negate())));
                onLimits.add("attribute_exists(" + balance + ")");
                if (amount < 0) {
                    onLimits.add(balance + " <= " + e.value(ItemCodec.number(
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
            set.add(ifNotExists(e, ItemCodec.LAST_REFILL, nowValue));
            set.add(ifNotExists(e, ItemCodec.DEADLINE, e.value(ItemCodec.number(deadline))));
            if (debit.defaultDerived()) {
                set.add(ifNotExists(e, ItemCodec.TTL, e.value(ItemCodec.number(ttl(debit.limits(), deadline, now)))));
            }
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

    private static String ifNotExists(Expression e, String attribute, String value) {
        String name = e.name(attribute);
        return name + " = if_not_exists(" + name + ", " + value + ")";
    }

    /**
     * A dripping limit's full-at point in an update. Taking from a full bucket sets the point to now's grid plus the
     * amount; taking from a busy one adds the amount, and a hard limit requires that the point stays within one
     * capacity of now. Giving back subtracts, or sets the point to now when that would go past it (full).
     */
    private static void dripUpdate(Expression e, String name, Limit.Parameters p, long amount, long now,
            BucketState guess, boolean hard, StringJoiner set, StringJoiner onLimits) {
        String fullAt = e.name(ItemCodec.FULL_AT + name);
        BigInteger grid = FullAt.grid(now, p);
        BigInteger amountMilli = BigInteger.valueOf(amount);
        set.add(e.name(ItemCodec.PARAMETERS + name) + " = " + e.value(ItemCodec.parameters(p)));
        long balance = guess == null ? p.capacityMilli() : guess.balanceMilli(name);
        if (amount > 0 && balance >= p.capacityMilli()) {
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
     * A concurrency slot in an update: taking one sets the lease's entry in the holders map, guarded by the map
     * having room (entries that expired count until a whole write drops them); giving one back removes it.
     */
    private static void slotUpdate(Expression e, BucketDebit debit, Limit limit, long amount, long now,
            boolean correction, StringJoiner set, StringJoiner add, StringJoiner remove, StringJoiner condition) {
        String holders = e.name(ItemCodec.HOLDERS + limit.name());
        if (debit.countOnly()) {
            add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(Math.max(amount, 0))));
            condition.add("attribute_exists(" + holders + ")");
            return;
        }
        String slot = holders + "." + e.name(debit.leaseId());
        if (correction || amount < 0) {
            remove.add(slot);
            return;
        }
        set.add(slot + " = " + e.value(ItemCodec.number(now + limit.leaseTimeout().orElseThrow().toMillis())));
        add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(amount)));
        long slots = limit.parametersAt(now).capacityMilli() / Limit.MILLI;
        condition.add(limit.isSoft() ? "attribute_exists(" + holders + ")"
                : "size(" + holders + ") < " + e.value(ItemCodec.number(slots)));
    }

    /** Writes the whole bucket, on the condition that its version is still that of {@code previous}. */
    private void putBucket(BucketDebit debit, BucketState state, String stamp, long now,
            Map<String, AttributeValue> previous) {
        putBucket(debit, state, stamp, now, previous, null);
    }

    /** As above, also writing a correction's {@code marker} (when not {@code null}). */
    private void putBucket(BucketDebit debit, BucketState state, String stamp, long now,
            Map<String, AttributeValue> previous, String marker) {
        Map<String, AttributeValue> item = bucketItem(debit, state, stamp, now, previous);
        if (marker != null) {
            item.put(ItemCodec.MARKER + marker, ItemCodec.number(now));
        }
        client.putItem(b -> b.tableName(table).item(item)
                .conditionExpression(versionCondition(previous))
                .expressionAttributeNames(versionNames(previous))
                .expressionAttributeValues(versionValues(previous)));
    }

    /** The whole bucket item as the slow path writes it. */
    private Map<String, AttributeValue> bucketItem(BucketDebit debit, BucketState state, String stamp, long now,
            Map<String, AttributeValue> previous) {
        Map<String, AttributeValue> item = new HashMap<>(keys.bucket(debit.key()));
        ItemCodec.putBucket(item, state, debit.limits());
        long deadline = deadline(debit.limits(), state, now);
        item.put(ItemCodec.VERSION, ItemCodec.number(ItemCodec.version(previous) + 1));
        item.put(ItemCodec.STAMP, AttributeValue.fromS(stamp));
        item.put(ItemCodec.DEADLINE, ItemCodec.number(deadline));
        if (previous != null) {
            previous.forEach((name, value) -> {
                if (name.startsWith(ItemCodec.MARKER) && value.n() != null
                        && ItemCodec.longOf(value) > now - MARKER_MILLIS) {
                    item.put(name, value);
                }
            });
        }
        if (debit.defaultDerived()) {
            item.put(ItemCodec.TTL, ItemCodec.number(ttl(debit.limits(), deadline, now)));
        }
        return item;
    }

    /** When (epoch seconds) an idle default-derived bucket may expire: it is surely full again by then. */
    private static long ttl(List<Limit> limits, long deadline, long now) {
        return BucketMath.saturatedAdd(deadline, idleHorizon(limits, now)) / 1000 + 1;
    }

    /**
     * Until when the fast path may trust the stored state: the stamp's time to live, and the next instant any
     * limit's parameters change, resets, or ends a session.
     */
    private long deadline(List<Limit> limits, BucketState state, long now) {
        long deadline = now + stampTtlMillis;
        for (Limit limit : limits) {
            deadline = Math.min(deadline, limit.nextChangeAfter(now));
            deadline = Math.min(deadline, limit.nextResetAfter(now));
            LimitState s = state.limits().get(limit.name());
            if (s != null && s.inWindow() && limit.resetAfter().isPresent()) {
                deadline = Math.min(deadline, s.windowStartMillis() + limit.resetAfter().get().toMillis());
            }
        }
        return Math.max(deadline, now + 1);
    }

    /** How long after its deadline an idle default-derived bucket must survive before it is surely full again. */
    private static long idleHorizon(List<Limit> limits, long now) {
        long horizon = HOUR;
        for (Limit limit : limits) {
            if (limit.refillAmount() > 0) {
                long fill = Math.multiplyHigh(limit.capacityMilli(), limit.refillPeriodMillis()) == 0
                        ? limit.capacityMilli() * limit.refillPeriodMillis() / limit.refillAmountMilli()
                        : Long.MAX_VALUE / 4;
                horizon = Math.max(horizon, Math.min(Long.MAX_VALUE / 4, 2 * fill + HOUR));
            } else if (limit.resetAfter().isPresent()) {
                horizon = Math.max(horizon, 2 * limit.resetAfter().get().toMillis() + HOUR);
            } else {
                long reset = limit.nextResetAfter(now);
                horizon = Math.max(horizon, reset == Limit.NEVER ? Long.MAX_VALUE / 4 : reset - now + 24 * HOUR);
            }
        }
        return Math.min(horizon, 10L * 366 * 24 * HOUR);
    }

    private static String versionCondition(Map<String, AttributeValue> previous) {
        return previous == null ? "attribute_not_exists(PK)" : "#v = :v";
    }

    private static Map<String, String> versionNames(Map<String, AttributeValue> previous) {
        return previous == null ? null : Map.of("#v", ItemCodec.VERSION);
    }

    private static Map<String, AttributeValue> versionValues(Map<String, AttributeValue> previous) {
        return previous == null ? null : Map.of(":v", ItemCodec.number(ItemCodec.version(previous)));
    }

    private Map<String, AttributeValue> getItem(BucketDebit debit) {
        var response = client.getItem(b -> b.tableName(table).key(keys.bucket(debit.key())).consistentRead(true));
        return response.hasItem() && !response.item().isEmpty() ? response.item() : null;
    }

    BucketState read(BucketDebit debit, long now) {
        return current(getItem(debit), debit, now);
    }

    // ---- cascades

    /**
     * Child and parent in parallel; if one is refused, the other, admitted, is refunded exactly once, and the call
     * is refused with both buckets as they were before it.
     */
    AcquireResult acquireCompensating(List<BucketDebit> debits, long now) {
        Outcome[] known = new Outcome[debits.size()];
        boolean refusedLocally = false;
        for (int i = 0; i < debits.size(); i++) {
            BucketState local = localRefusal(debits.get(i), now);
            known[i] = new Outcome(local == null, local);
            refusedLocally |= local != null;
        }
        if (refusedLocally) {
            for (int i = 0; i < debits.size(); i++) {
                if (known[i].state() == null) {
                    BucketState estimate = estimate(debits.get(i), now);
                    known[i] = new Outcome(true, estimate != null ? estimate : read(debits.get(i), now));
                }
            }
            return result(false, debits, known);
        }
        List<Future<Outcome>> others = new ArrayList<>();
        for (int i = 1; i < debits.size(); i++) {
            BucketDebit debit = debits.get(i);
            others.add(executor.submit(() -> acquireOne(debit, now)));
        }
        Outcome[] outcomes = new Outcome[debits.size()];
        RuntimeException failure = null;
        try {
            outcomes[0] = acquireOne(debits.get(0), now);
        } catch (RuntimeException e) {
            failure = e;
        }
        for (int i = 1; i < debits.size(); i++) {
            try {
                outcomes[i] = others.get(i - 1).get();
            } catch (ExecutionException e) {
                failure = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = new StoreUnavailableException("interrupted while writing a cascade", e);
            }
        }
        boolean admitted = failure == null;
        boolean refused = false;
        for (Outcome outcome : outcomes) {
            admitted &= outcome != null && outcome.admitted();
            refused |= outcome != null && !outcome.admitted();
        }
        if (admitted) {
            return result(true, debits, outcomes);
        }
        for (int i = 0; i < debits.size(); i++) {
            if (outcomes[i] != null && outcomes[i].admitted()) {
                refund(debits.get(i), now);
                outcomes[i] = new Outcome(true, outcomes[i].state().adjusted(debits.get(i).limits(),
                        negated(debits.get(i).amountsMilli()), debits.get(i).countOnly(), debits.get(i).leaseId()));
            }
        }
        if (!refused) {
            throw failure;
        }
        for (int i = 0; i < debits.size(); i++) {
            if (outcomes[i] == null) {
                outcomes[i] = new Outcome(true, BucketState.fresh(debits.get(i).limits(), now));
            }
        }
        return result(false, debits, outcomes);
    }

    /**
     * Gives back exactly what an admitted debit took, slots included, exactly once ({@link #applyOnce}). If the
     * store cannot be reached for long, the refund is lost (logged) but the call stays refused.
     */
    private void refund(BucketDebit debit, long now) {
        try {
            applyOnce(debit.withAmounts(negated(debit.amountsMilli())), now);
        } catch (RuntimeException e) {
            log.error("could not give back {} to bucket {} after a refused cascade: {}", debit.amountsMilli(),
                    debit.key(), e.toString());
        }
    }

    /**
     * Applies a correction exactly once, trying again while the store fails (a few times, backing off). The write
     * carries a marker attribute naming it, so that a retry of a write whose first attempt landed unseen (a timeout)
     * finds the marker and stops; a marker is removed by this process's next write to the bucket, and a whole
     * rewrite drops markers older than a minute.
     */
    void applyOnce(BucketDebit debit, long now) {
        String marker = Long.toHexString(ThreadLocalRandom.current().nextLong());
        for (int attempt = 1; ; attempt++) {
            try {
                apply(debit, now, marker);
                settled.computeIfAbsent(debit.key(), k -> new ConcurrentLinkedQueue<>()).add(marker);
                return;
            } catch (SdkException | StoreUnavailableException e) {
                if (attempt >= CORRECTION_ATTEMPTS) {
                    throw e;
                }
                backOff(attempt + 3);
            }
        }
    }

    /**
     * Applies corrections to several buckets (a cascade's adjustment) all or nothing as far as the store allows:
     * each exactly once with retries; when one still fails, those already applied are undone (best effort, logged)
     * and the failure is raised.
     */
    void applyAll(List<BucketDebit> debits, long now) {
        List<BucketDebit> done = new ArrayList<>();
        for (BucketDebit debit : debits) {
            try {
                applyOnce(debit, now);
                done.add(debit);
            } catch (RuntimeException e) {
                for (BucketDebit applied : done) {
                    try {
                        applyOnce(applied.withAmounts(negated(applied.amountsMilli())), now);
                    } catch (RuntimeException undo) {
                        log.error("could not undo {} on bucket {} after bucket {} failed: {}",
                                applied.amountsMilli(), applied.key(), debit.key(), undo.toString());
                    }
                }
                throw e;
            }
        }
    }

    /** Renews the lease's slots on every debit; false when one of them no longer holds its slot. */
    boolean renew(List<BucketDebit> debits, long now) {
        boolean held = true;
        for (BucketDebit debit : debits) {
            Expression e = new Expression();
            StringJoiner set = new StringJoiner(", ", "SET ", "");
            StringJoiner condition = new StringJoiner(" AND ");
            for (Limit limit : debit.limits()) {
                if (limit.isConcurrency() && debit.amountsMilli().getOrDefault(limit.name(), 0L) > 0) {
                    String slot = e.name(ItemCodec.HOLDERS + limit.name()) + "." + e.name(debit.leaseId());
                    set.add(slot + " = " + e.value(ItemCodec.number(now
                            + limit.leaseTimeout().orElseThrow().toMillis())));
                    condition.add("attribute_exists(" + slot + ")");
                }
            }
            if (condition.length() == 0) {
                continue;
            }
            try {
                client.updateItem(b -> b.tableName(table).key(keys.bucket(debit.key()))
                        .updateExpression(set.toString()).conditionExpression(condition.toString())
                        .expressionAttributeNames(e.names).expressionAttributeValues(e.values));
            } catch (ConditionalCheckFailedException expired) {
                held = false;
            }
        }
        return held;
    }

    /**
     * Child and parent in one transaction of fast-path updates. When it is cancelled, the reasons say which bucket
     * refused (and may carry its item); the buckets are then read, refilled and either all written in one
     * transaction conditioned on their versions, or the call is refused without writing.
     */
    AcquireResult acquireTransactionally(List<BucketDebit> debits, long now) {
        List<String> stamps = debits.stream().map(d -> stamp(d.limits())).toList();
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (int i = 0; i < debits.size(); i++) {
            items.add(null);
        }
        List<UpdateItemRequest> guessed = new ArrayList<>();
        for (int i = 0; i < debits.size() && debits.stream().allMatch(BucketWrites::consumes); i++) {
            Known k = known.get(debits.get(i).key());
            BucketState guess = k != null && k.stamp().equals(stamps.get(i))
                    ? k.state().refilled(debits.get(i).limits(), now) : null;
            guessed.add(update(debits.get(i), now, stamps.get(i), guess, false));
        }
        if (guessed.size() == debits.size() && !guessed.contains(null)) {
            List<TransactWriteItem> updates = new ArrayList<>();
            for (UpdateItemRequest u : guessed) {
                updates.add(TransactWriteItem.builder().update(Update.builder().tableName(table).key(u.key())
                        .updateExpression(u.updateExpression()).conditionExpression(u.conditionExpression())
                        .expressionAttributeNames(u.expressionAttributeNames())
                        .expressionAttributeValues(u.expressionAttributeValues())
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build()).build());
            }
            try {
                client.transactWriteItems(b -> b.transactItems(updates));
                Outcome[] outcomes = new Outcome[debits.size()];
                for (int i = 0; i < debits.size(); i++) {
                    outcomes[i] = new Outcome(true, read(debits.get(i), now));
                }
                return result(true, debits, outcomes);
            } catch (TransactionCanceledException e) {
                refusedBy(e, debits, items);
            }
        }
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Outcome[] outcomes = new Outcome[debits.size()];
            boolean admitted = true;
            for (int i = 0; i < debits.size(); i++) {
                BucketDebit debit = debits.get(i);
                if (items.get(i) == null) {
                    items.set(i, getItem(debit));
                }
                BucketState refilled = current(items.get(i), debit, now);
                boolean ok = debit.countOnly() || refilled.admits(debit.limits(), debit.amountsMilli());
                admitted &= ok;
                outcomes[i] = new Outcome(ok, ok
                        ? refilled.debited(debit.limits(), debit.amountsMilli(), debit.countOnly(), debit.leaseId()) : refilled);
            }
            if (!admitted) {
                for (int i = 0; i < debits.size(); i++) {
                    if (outcomes[i].admitted()) {
                        outcomes[i] = new Outcome(false, current(items.get(i), debits.get(i), now));
                    }
                }
                return result(false, debits, outcomes);
            }
            List<TransactWriteItem> puts = new ArrayList<>();
            for (int i = 0; i < debits.size(); i++) {
                Map<String, AttributeValue> previous = items.get(i);
                puts.add(TransactWriteItem.builder().put(Put.builder().tableName(table)
                        .item(bucketItem(debits.get(i), outcomes[i].state(), stamps.get(i), now, previous))
                        .conditionExpression(versionCondition(previous))
                        .expressionAttributeNames(versionNames(previous))
                        .expressionAttributeValues(versionValues(previous))
                        .build()).build());
            }
            try {
                client.transactWriteItems(b -> b.transactItems(puts));
                return result(true, debits, outcomes);
            } catch (TransactionCanceledException e) {
                for (int i = 0; i < debits.size(); i++) {
                    items.set(i, null);
                }
                refusedBy(e, debits, items);
            }
        }
        throw new StoreUnavailableException("DynamoDB store gave up on a cascade after " + MAX_ATTEMPTS
                + " contended attempts", null);
    }

    /** Records, per bucket, the item a cancelled transaction returned for it, and logs which bucket refused. */
    private static void refusedBy(TransactionCanceledException e, List<BucketDebit> debits,
            List<Map<String, AttributeValue>> items) {
        List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
        for (int i = 0; i < Math.min(reasons.size(), debits.size()); i++) {
            CancellationReason reason = reasons.get(i);
            if ("ConditionalCheckFailed".equals(reason.code())) {
                log.debug("cascade refused by bucket {}", debits.get(i).key());
                if (reason.hasItem() && !reason.item().isEmpty()) {
                    items.set(i, reason.item());
                }
            }
        }
    }

    private static AcquireResult result(boolean admitted, List<BucketDebit> debits, Outcome[] outcomes) {
        List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
        for (int i = 0; i < debits.size(); i++) {
            snapshots.add(new BucketSnapshot(debits.get(i).key(), outcomes[i].state()));
        }
        return new AcquireResult(admitted, snapshots);
    }

    private static Map<String, Long> negated(Map<String, Long> amounts) {
        Map<String, Long> negated = new HashMap<>();
        amounts.forEach((name, amount) -> negated.put(name, -amount));
        return negated;
    }

    // ---- adjustments

    /**
     * Applies an adjustment or rollback in one update guessed from what this process knows; a wrong guess is settled
     * from the item like an admission, and a bucket whose stored form cannot take an update is written whole.
     */
    void apply(BucketDebit debit, long now) {
        apply(debit, now, null);
    }

    /** As {@link #apply(BucketDebit, long)}; with a {@code marker}, nothing is done if the item already has it. */
    private void apply(BucketDebit debit, long now, String marker) {
        String stamp = stamp(debit.limits());
        Known k = known.get(debit.key());
        BucketState guess = k != null && k.stamp().equals(stamp) ? k.state().refilled(debit.limits(), now) : null;
        Map<String, AttributeValue> item;
        try {
            corrected(debit, stamp, now, client.updateItem(update(debit, now, stamp, guess, true, marker)));
            return;
        } catch (ConditionalCheckFailedException e) {
            item = returned(e);
        }
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (attempt > 1) {
                backOff(attempt);
            }
            if (item == UNKNOWN) {
                item = getItem(debit);
            }
            if (marker != null && item != null && item.containsKey(ItemCodec.MARKER + marker)) {
                forget(debit.key());
                return;
            }
            BucketState state = current(item, debit, now);
            if (needsRewrite(item, debit, stamp, now, true)) {
                BucketState next = state.adjusted(debit.limits(), debit.amountsMilli(), debit.countOnly(),
                        debit.leaseId());
                try {
                    putBucket(debit, next, stamp, now, item, marker);
                    learn(debit.key(), stamp, next, now, 0);
                    return;
                } catch (ConditionalCheckFailedException lost) {
                    item = UNKNOWN;
                    continue;
                }
            }
            try {
                corrected(debit, stamp, now, client.updateItem(update(debit, now, stamp, state, true, marker)));
                return;
            } catch (ConditionalCheckFailedException lost) {
                item = returned(lost);
            }
        }
        throw new StoreUnavailableException("DynamoDB store gave up adjusting bucket " + debit.key() + " after "
                + MAX_ATTEMPTS + " contended attempts", null);
    }

    private void corrected(BucketDebit debit, String stamp, long now, UpdateItemResponse response) {
        learn(debit.key(), stamp, ItemCodec.bucket(response.attributes(), now).refilled(debit.limits(), now), now, 0);
    }

    private String stamp(List<Limit> limits) {
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
    private static final class Expression {
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
