package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.dynamodb.BucketWrites.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * A debit of several buckets at once (a child and the parents it cascades to, or targets spent together): written
 * in parallel and compensated exactly once ({@link dev.zaelimiter.store.dynamodb.CascadeWrite#COMPENSATING}), or in
 * one transaction ({@link dev.zaelimiter.store.dynamodb.CascadeWrite#TRANSACTIONAL}); and corrections of several
 * buckets completed or undone.
 */
final class CascadeWrites {

    private static final Logger log = LoggerFactory.getLogger(CascadeWrites.class);

    private final DynamoDbClient client;
    private final BucketItems items;
    private final KnownBuckets known;
    private final BucketWrites buckets;
    private final ExecutorService executor;

    CascadeWrites(DynamoDbClient client, BucketItems items, KnownBuckets known, BucketWrites buckets,
            ExecutorService executor) {
        this.client = client;
        this.items = items;
        this.known = known;
        this.buckets = buckets;
        this.executor = executor;
    }

    /**
     * Child and parent in parallel; if one is refused, the other, admitted, is refunded exactly once, and the call
     * is refused with both buckets as they were before it.
     */
    AcquireResult acquireCompensating(List<BucketDebit> debits, long now) {
        Outcome[] unwritten = new Outcome[debits.size()];
        boolean refusedLocally = false;
        for (int i = 0; i < debits.size(); i++) {
            BucketState refusal = known.localRefusal(debits.get(i), items.stamp(debits.get(i).kept()), now);
            unwritten[i] = new Outcome(refusal == null, refusal);
            refusedLocally |= refusal != null;
        }
        if (refusedLocally) {
            for (int i = 0; i < debits.size(); i++) {
                if (unwritten[i].state() == null) {
                    BucketState estimate = known.estimate(debits.get(i), items.stamp(debits.get(i).kept()), now);
                    unwritten[i] = new Outcome(true, estimate != null ? estimate : buckets.read(debits.get(i), now));
                }
            }
            return result(false, debits, unwritten);
        }
        List<Future<Outcome>> others = new ArrayList<>();
        for (int i = 1; i < debits.size(); i++) {
            BucketDebit debit = debits.get(i);
            others.add(executor.submit(() -> buckets.acquireOne(debit, now)));
        }
        Outcome[] outcomes = new Outcome[debits.size()];
        RuntimeException failure = null;
        try {
            outcomes[0] = buckets.acquireOne(debits.get(0), now);
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
            buckets.refundOnce(debit.withAmounts(negated(debit.amountsMilli())), now);
        } catch (RuntimeException e) {
            log.error("could not give back {} to bucket {} after a refused cascade: {}", debit.amountsMilli(),
                    debit.key(), e.toString());
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
                buckets.applyOnce(debit, now);
                done.add(debit);
            } catch (RuntimeException e) {
                for (BucketDebit applied : done) {
                    try {
                        buckets.applyOnce(applied.withAmounts(negated(applied.amountsMilli())), now);
                    } catch (RuntimeException undo) {
                        log.error("could not undo {} on bucket {} after bucket {} failed: {}",
                                applied.amountsMilli(), applied.key(), debit.key(), undo.toString());
                    }
                }
                throw e;
            }
        }
    }

    /**
     * Child and parent in one transaction of fast-path updates. When it is cancelled, the reasons say which bucket
     * refused (and may carry its item); the buckets are then read, refilled and either all written in one
     * transaction conditioned on their versions, or the call is refused without writing.
     */
    AcquireResult acquireTransactionally(List<BucketDebit> debits, long now) {
        List<String> stamps = debits.stream().map(d -> items.stamp(d.kept())).toList();
        List<Map<String, AttributeValue>> found = new ArrayList<>();
        for (int i = 0; i < debits.size(); i++) {
            found.add(null);
        }
        List<UpdateItemRequest> guessed = new ArrayList<>();
        for (int i = 0; i < debits.size() && debits.stream().allMatch(BucketItems::consumes); i++) {
            KnownBuckets.Known k = known.get(debits.get(i).key(), stamps.get(i));
            BucketState guess = k == null ? null : k.estimate(debits.get(i).limits(), now);
            guessed.add(items.admission(debits.get(i), now, stamps.get(i), guess, k == null ? now : k.learnedAt()));
        }
        if (guessed.size() == debits.size() && !guessed.contains(null)) {
            List<TransactWriteItem> updates = new ArrayList<>();
            for (UpdateItemRequest u : guessed) {
                updates.add(TransactWriteItem.builder().update(Update.builder().tableName(items.table()).key(u.key())
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
                    outcomes[i] = new Outcome(true, buckets.read(debits.get(i), now));
                }
                return result(true, debits, outcomes);
            } catch (TransactionCanceledException e) {
                refusedBy(e, debits, found);
            }
        }
        long started = System.nanoTime();
        for (int attempt = 0; buckets.mayRetry(attempt, started); attempt++) {
            if (attempt > 1) {
                BucketWrites.backOff(attempt);
            }
            Outcome[] outcomes = new Outcome[debits.size()];
            boolean admitted = true;
            for (int i = 0; i < debits.size(); i++) {
                BucketDebit debit = debits.get(i);
                if (found.get(i) == null) {
                    found.set(i, buckets.getItem(debit));
                }
                BucketState refilled = StoredBucket.current(found.get(i), debit, now);
                boolean ok = debit.countOnly() || refilled.admits(debit.limits(), debit.amountsMilli());
                admitted &= ok;
                outcomes[i] = new Outcome(ok, ok
                        ? refilled.debited(debit.limits(), debit.amountsMilli(), debit.countOnly(), debit.leaseId())
                        : refilled);
            }
            if (!admitted) {
                for (int i = 0; i < debits.size(); i++) {
                    if (outcomes[i].admitted()) {
                        outcomes[i] = new Outcome(false, StoredBucket.current(found.get(i), debits.get(i), now));
                    }
                }
                return result(false, debits, outcomes);
            }
            List<TransactWriteItem> puts = new ArrayList<>();
            for (int i = 0; i < debits.size(); i++) {
                Map<String, AttributeValue> previous = found.get(i);
                BucketDebit debit = debits.get(i);
                BucketState kept = !debit.overridden() ? outcomes[i].state()
                        : StoredBucket.current(previous, debit, now).debitedKept(debit.limits(), debit.kept(),
                                debit.amountsMilli(), debit.countOnly(), debit.leaseId());
                puts.add(TransactWriteItem.builder().put(Put.builder().tableName(items.table())
                        .item(items.bucketItem(debit, kept, stamps.get(i), now, previous))
                        .conditionExpression(BucketItems.versionCondition(previous))
                        .expressionAttributeNames(BucketItems.versionNames(previous))
                        .expressionAttributeValues(BucketItems.versionValues(previous))
                        .build()).build());
            }
            try {
                client.transactWriteItems(b -> b.transactItems(puts));
                return result(true, debits, outcomes);
            } catch (TransactionCanceledException e) {
                for (int i = 0; i < debits.size(); i++) {
                    found.set(i, null);
                }
                refusedBy(e, debits, found);
            }
        }
        throw BucketWrites.contended("a cascade", started);
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
}
