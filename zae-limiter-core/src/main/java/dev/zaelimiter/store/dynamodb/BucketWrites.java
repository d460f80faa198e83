package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.algorithm.BucketState;
import dev.zaelimiter.algorithm.LimitState;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The bucket paths of {@link DynamoDbStore}: the one-write fast path, the read-refill-write slow path, cascades and
 * adjustments. Every decision is made by {@link BucketState}; this class only moves state in and out of items.
 */
final class BucketWrites {

    private static final Logger log = LoggerFactory.getLogger(BucketWrites.class);

    /** Attempts of the slow path under contention before giving up. */
    private static final int MAX_ATTEMPTS = 64;
    private static final long HOUR = 3_600_000L;
    private static final long SHORT_HINT_MILLIS = 1000;

    private final DynamoDbClient client;
    private final String table;
    private final Keys keys;
    private final long stampTtlMillis;
    private final ExecutorService executor;
    private final Map<List<Limit>, String> stamps = new ConcurrentHashMap<>();
    /** Buckets found short, until when they are expected to stay short (at most {@link #SHORT_HINT_MILLIS}). */
    private final Map<BucketKey, Long> shortBuckets = new ConcurrentHashMap<>();

    /** One bucket's outcome: the state after the debit when admitted, before it when not. */
    record Outcome(boolean admitted, BucketState state) {
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

    /**
     * The fast path when the bucket is likely to cover the debit; when this process found it short moments ago, the
     * slow path straight away, which spares a refused write (a rejection then costs one read, not a refused write
     * and a read).
     */
    Outcome acquireOne(BucketDebit debit, long now) {
        String stamp = stamp(debit.limits());
        Long shortUntil = shortBuckets.get(debit.key());
        if (!consumes(debit) || (shortUntil != null && now < shortUntil)) {
            return slowPath(debit, now, stamp, null);
        }
        try {
            UpdateItemResponse response = client.updateItem(fastUpdate(debit, now, stamp));
            return new Outcome(true, ItemCodec.bucket(response.attributes()).refilled(debit.limits(), now));
        } catch (ConditionalCheckFailedException e) {
            return slowPath(debit, now, stamp, e.hasItem() && !e.item().isEmpty() ? e.item() : null);
        }
    }

    /**
     * Reads (unless the failed write returned the item), refills here, and writes the whole bucket back on the
     * condition that nobody wrote it since; or rejects without writing. A lost race retries the fast path once, then
     * starts over.
     */
    private Outcome slowPath(BucketDebit debit, long now, String stamp, Map<String, AttributeValue> item) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (item == null) {
                item = getItem(debit);
            }
            BucketState refilled = current(item, debit, now);
            if (!debit.countOnly() && !refilled.admits(debit.limits(), debit.amountsMilli())) {
                rememberShort(debit, refilled, now);
                return new Outcome(false, refilled);
            }
            shortBuckets.remove(debit.key());
            BucketState next = refilled.debited(debit.limits(), debit.amountsMilli(), debit.countOnly(), debit.leaseId());
            try {
                putBucket(debit, next, stamp, now, item);
                return new Outcome(true, next);
            } catch (ConditionalCheckFailedException lost) {
                item = null;
                if (consumes(debit)) {
                    try {
                        UpdateItemResponse response = client.updateItem(fastUpdate(debit, now, stamp));
                        return new Outcome(true, ItemCodec.bucket(response.attributes()).refilled(debit.limits(), now));
                    } catch (ConditionalCheckFailedException again) {
                        item = again.hasItem() && !again.item().isEmpty() ? again.item() : null;
                    }
                }
            }
        }
        throw new StoreUnavailableException("DynamoDB store gave up on bucket " + debit.key() + " after "
                + MAX_ATTEMPTS + " contended attempts", null);
    }

    /** Remembers until when {@code refilled} cannot cover {@code debit}, so that calls until then read first. */
    private void rememberShort(BucketDebit debit, BucketState refilled, long now) {
        long wait = 0;
        for (Limit limit : debit.limits()) {
            if (!limit.isSoft() && !refilled.covers(limit.name(), debit.amountsMilli())) {
                wait = Math.max(wait, refilled.retryAfterMillis(limit, debit.amountsMilli().get(limit.name())));
            }
        }
        if (shortBuckets.size() > 100_000) {
            shortBuckets.clear();
        }
        shortBuckets.put(debit.key(), now + Math.min(wait, SHORT_HINT_MILLIS));
    }

    /** The bucket in {@code item} refilled to {@code now}; a fresh one when there is none or it has expired. */
    private static BucketState current(Map<String, AttributeValue> item, BucketDebit debit, long now) {
        if (item == null || expired(item, now)) {
            return BucketState.fresh(debit.limits(), now);
        }
        return ItemCodec.bucket(item).refilled(debit.limits(), now);
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

    /**
     * {@code ADD} every amount, guarded by the stamp and deadline and by each hard limit's floor. A session quota
     * only takes the fast path inside a running session: starting one needs the slow path to set its deadline.
     */
    private UpdateItemRequest fastUpdate(BucketDebit debit, long now, String stamp) {
        return debitUpdate(debit, now, stamp, false)
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
    }

    /**
     * The {@code ADD} of a debit's amounts to balances (unless count-only) and consumption counters, guarded by the
     * deadline, by the stamp when one is given, and by every touched balance existing. An admission
     * ({@code correction == false}) also guards each hard limit's floor and a session quota's running session; a
     * correction guards each refund so that it cannot lift a balance above the capacity in force.
     */
    private UpdateItemRequest.Builder debitUpdate(BucketDebit debit, long now, String stamp, boolean correction) {
        Expression e = new Expression();
        StringJoiner set = new StringJoiner(", ", "SET ", "").setEmptyValue("");
        StringJoiner add = new StringJoiner(", ", "ADD ", "");
        StringJoiner remove = new StringJoiner(", ", "REMOVE ", "").setEmptyValue("");
        add.add(e.name(ItemCodec.VERSION) + " " + e.value(ItemCodec.number(1)));
        StringJoiner condition = new StringJoiner(" AND ");
        if (stamp != null) {
            condition.add(e.name(ItemCodec.STAMP) + " = " + e.value(AttributeValue.fromS(stamp)));
        }
        condition.add(e.name(ItemCodec.DEADLINE) + " > " + e.value(ItemCodec.number(now)));
        for (Limit limit : debit.limits()) {
            long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
            if (amount == 0) {
                continue;
            }
            if (limit.isConcurrency()) {
                slotUpdate(e, debit, limit, amount, now, correction, set, add, remove, condition);
                continue;
            }
            String balance = e.name(ItemCodec.BALANCE + limit.name());
            add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(amount)));
            boolean floor = !correction && !debit.countOnly() && !limit.isSoft() && amount > 0;
            condition.add(floor ? balance + " >= " + e.value(ItemCodec.number(amount))
                    : "attribute_exists(" + balance + ")");
            if (debit.countOnly()) {
                continue;
            }
            add.add(balance + " " + e.value(ItemCodec.number(-amount)));
            if (correction && amount < 0) {
                long ceiling = limit.parametersAt(now).capacityMilli() + amount;
                condition.add(balance + " <= " + e.value(ItemCodec.number(ceiling)));
            }
            if (!correction && limit.resetAfter().isPresent()) {
                condition.add("attribute_exists(" + e.name(ItemCodec.WINDOW + limit.name()) + ")");
            }
        }
        return UpdateItemRequest.builder().tableName(table).key(keys.bucket(debit.key()))
                .updateExpression(String.join(" ", set.toString(), add.toString(), remove.toString()).trim())
                .conditionExpression(condition.toString())
                .expressionAttributeNames(e.names)
                .expressionAttributeValues(e.values);
    }

    /**
     * A concurrency slot in an update: taking one sets the lease's entry in the holders map, guarded by the map
     * having room (entries that expired still count until the slow path drops them); giving one back removes it.
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
        client.putItem(b -> b.tableName(table).item(bucketItem(debit, state, stamp, now, previous))
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
        if (debit.defaultDerived()) {
            item.put(ItemCodec.TTL, ItemCodec.number(Math.addExact(deadline, idleHorizon(debit.limits(), now))
                    / 1000 + 1));
        }
        return item;
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
        for (Outcome outcome : outcomes) {
            admitted &= outcome != null && outcome.admitted();
        }
        if (admitted) {
            return result(true, debits, outcomes);
        }
        for (int i = 0; i < debits.size(); i++) {
            if (outcomes[i] != null && outcomes[i].admitted()) {
                refund(debits.get(i));
                outcomes[i] = new Outcome(true, outcomes[i].state().adjusted(debits.get(i).limits(),
                        negated(debits.get(i).amountsMilli()), debits.get(i).countOnly(), debits.get(i).leaseId()));
            }
        }
        if (failure != null) {
            throw failure;
        }
        return result(false, debits, outcomes);
    }

    /** Gives back exactly what an admitted debit took, slots included. */
    private void refund(BucketDebit debit) {
        Expression e = new Expression();
        StringJoiner add = new StringJoiner(", ", "ADD ", "");
        StringJoiner remove = new StringJoiner(", ", "REMOVE ", "").setEmptyValue("");
        add.add(e.name(ItemCodec.VERSION) + " " + e.value(ItemCodec.number(1)));
        for (Limit limit : debit.limits()) {
            long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
            if (amount == 0) {
                continue;
            }
            add.add(e.name(ItemCodec.CONSUMED + limit.name()) + " " + e.value(ItemCodec.number(-amount)));
            if (debit.countOnly()) {
                continue;
            }
            if (limit.isConcurrency()) {
                remove.add(e.name(ItemCodec.HOLDERS + limit.name()) + "." + e.name(debit.leaseId()));
            } else {
                add.add(e.name(ItemCodec.BALANCE + limit.name()) + " " + e.value(ItemCodec.number(amount)));
            }
        }
        try {
            client.updateItem(b -> b.tableName(table).key(keys.bucket(debit.key()))
                    .updateExpression((add + " " + remove).trim())
                    .conditionExpression("attribute_exists(PK)")
                    .expressionAttributeNames(e.names)
                    .expressionAttributeValues(e.values));
        } catch (ConditionalCheckFailedException gone) {
            log.debug("bucket {} disappeared before its refund; nothing to give back", debit.key());
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
        if (debits.stream().allMatch(BucketWrites::consumes)) {
            List<TransactWriteItem> updates = new ArrayList<>();
            for (int i = 0; i < debits.size(); i++) {
                UpdateItemRequest u = fastUpdate(debits.get(i), now, stamps.get(i));
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
     * Applies an adjustment. Consuming more is a plain {@code ADD}; giving back is an {@code ADD} guarded so that
     * the balance stays within the capacity in force. Both are guarded by the deadline, so that a reset or window
     * change that fell due is applied first. When a guard fails (or the bucket is missing), the bucket is read,
     * adjusted here and written back on its version.
     */
    void apply(BucketDebit debit, long now) {
        try {
            client.updateItem(debitUpdate(debit, now, null, true).build());
            return;
        } catch (ConditionalCheckFailedException slow) {
            // adjusted below
        }
        String stamp = stamp(debit.limits());
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Map<String, AttributeValue> item = getItem(debit);
            BucketState next = current(item, debit, now).adjusted(debit.limits(), debit.amountsMilli(),
                    debit.countOnly(), debit.leaseId());
            try {
                putBucket(debit, next, stamp, now, item);
                return;
            } catch (ConditionalCheckFailedException lost) {
                // somebody wrote in between: read again
            }
        }
        throw new StoreUnavailableException("DynamoDB store gave up adjusting bucket " + debit.key() + " after "
                + MAX_ATTEMPTS + " contended attempts", null);
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
