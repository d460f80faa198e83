package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.LimitState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The paths of one bucket in {@link DynamoDbStore}: admission and correction in one conditional update guessed from
 * what this process knows ({@link KnownBuckets}), settled from the item when the guess was wrong, or a whole
 * versioned rewrite when the stored form cannot take an update ({@link BucketItems}). Every decision is made by
 * {@link BucketState}. Also the one write of a process's pool of a reserving limit ({@link #exchange}).
 *
 * <p>Longer than most files on purpose: admission, correction, slot renewal and the pool's exchange share the
 * guess-then-settle loop over one item and its helpers.
 */
final class BucketWrites {

    private static final Logger log = LoggerFactory.getLogger(BucketWrites.class);

    /**
     * How many request deadlines a write that keeps losing races to other processes tries again (backing off) before
     * it counts as a store failure: contention alone must not fail a call, only a bucket that stays unwritable this
     * long (10 s with the default deadline).
     */
    static final int CONTENTION_DEADLINES = 20;

    private static final int CORRECTION_ATTEMPTS = 4;

    private final DynamoDbClient client;
    private final BucketItems items;
    private final KnownBuckets known;
    private final long contentionBudgetNanos;

    /** One bucket's outcome: the state after the debit when admitted, before it when not. */
    record Outcome(boolean admitted, BucketState state) {
    }

    BucketWrites(DynamoDbClient client, BucketItems items, KnownBuckets known, Duration requestTimeout) {
        this.client = client;
        this.items = items;
        this.known = known;
        this.contentionBudgetNanos = requestTimeout.multipliedBy(CONTENTION_DEADLINES).toNanos();
    }

    /** Forgets what this process knows of a bucket (it was deleted). */
    void forget(BucketKey key) {
        known.forget(key);
    }

    AcquireResult acquire(BucketDebit debit, long now) {
        return acquire(debit, now, 0);
    }

    /**
     * Admits {@code debit}, or books it up to {@code horizonMillis} ahead ({@link #horizon} says how far this store
     * goes), with the wait of a booking.
     */
    AcquireResult acquire(BucketDebit debit, long now, long horizonMillis) {
        long horizon = horizon(debit, now, horizonMillis);
        Outcome outcome = acquireOne(debit, now, horizon);
        long wait = outcome.admitted() && horizon > 0
                ? outcome.state().bookedWaitMillis(debit.limits(), debit.amountsMilli()) : 0;
        return new AcquireResult(outcome.admitted(), List.of(new BucketSnapshot(debit.key(), outcome.state())),
                wait);
    }

    /**
     * How far ahead this store books {@code debit} when asked for {@code horizonMillis}: as
     * {@link BucketDebit#bookingHorizon} says (bookable, and never further than its fastest hard dripping limit takes
     * to fill from empty: the item's time to live and its life count on that), and not at all when it takes from a
     * scheduled or reserving limit, whose refill one condition cannot follow.
     */
    static long horizon(BucketDebit debit, long now, long horizonMillis) {
        for (Limit limit : debit.limits()) {
            if (!limit.isSoft() && debit.amountsMilli().getOrDefault(limit.name(), 0L) > 0
                    && (!limit.schedule().isEmpty() || limit.localReservations())) {
                return 0;
            }
        }
        return debit.bookingHorizon(now, horizonMillis);
    }

    /** The bucket of {@code debit} as this process last learned it, refilled to {@code now}; {@code null}: unknown. */
    BucketState estimate(BucketDebit debit, long now) {
        return known.estimate(debit, items.stamp(debit.kept()), now);
    }

    /** Refuses locally when what this process knows allows it, else writes once, and settles a wrong guess. */
    Outcome acquireOne(BucketDebit debit, long now) {
        return acquireOne(debit, now, 0);
    }

    /**
     * As {@link #acquireOne(BucketDebit, long)}, booking up to {@code horizon} ahead (as {@link #horizon} bounds
     * it). A booking always asks the store: what this process knows cannot see other processes' refunds, rollbacks
     * and negative adjustments, and a waiter refused on it might give up for good.
     */
    Outcome acquireOne(BucketDebit debit, long now, long horizon) {
        String stamp = items.stamp(debit.kept());
        KnownBuckets.Known k = known.get(debit.key(), stamp);
        BucketState estimate = null;
        if (k != null) {
            estimate = k.estimate(debit.limits(), now);
            if (horizon == 0) {
                BucketState refusal = KnownBuckets.localRefusal(debit, k, estimate, now);
                if (refusal != null) {
                    return new Outcome(false, refusal);
                }
                if (!known.claimProbe(debit, k, now)) {
                    return new Outcome(false, k.learned(debit.limits(), now));
                }
            }
            now = estimate.lastRefillMillis();         // not before the last write this process knows of
        }
        UpdateItemRequest request = BucketItems.consumes(debit) ? items.admission(debit, now, stamp, estimate,
                k == null ? now : k.learnedAt(), horizon) : null;
        if (request == null) {
            return settle(debit, now, stamp, StoredBucket.UNKNOWN, false, horizon);
        }
        boolean expected = estimate != null && estimate.admitsWithin(debit.limits(), debit.amountsMilli(), horizon);
        boolean reserved = expected && !debit.countOnly();
        if (reserved) {
            known.reserve(debit, stamp, now);
        }
        try {
            return admitted(debit, stamp, now, request, client.updateItem(request));
        } catch (ConditionalCheckFailedException e) {
            return settle(debit, now, stamp, StoredBucket.returned(e), expected, horizon);
        } finally {
            if (reserved) {
                known.release(debit, stamp);
            }
        }
    }

    private Outcome admitted(BucketDebit debit, String stamp, long now, UpdateItemRequest request,
            UpdateItemResponse response) {
        BucketState state = answered(debit, now, request, response);
        if (state == null) {
            return new Outcome(true, read(debit, now));
        }
        known.learnAdmitted(debit, stamp, state, now);
        return new Outcome(true, state);
    }

    /**
     * The bucket that an update's answer shows at {@code now}, or {@code null} when an {@code UPDATED_NEW} answer
     * lacks what reading the bucket needs (a limit's state, the parameters of a full-at point): the bucket is then
     * forgotten, so that the next write treats it as unknown, rather than the call failing on an item that is sound.
     */
    private BucketState answered(BucketDebit debit, long now, UpdateItemRequest request,
            UpdateItemResponse response) {
        items.saw(debit.key(), response.attributes());
        if (request.returnValues() != ReturnValue.UPDATED_NEW) {
            return StoredBucket.decoded(response.attributes(), debit.limits(), now);
        }
        try {
            if (StoredBucket.holdsEveryLimit(response.attributes(), debit.limits())) {
                return StoredBucket.decoded(response.attributes(), debit.limits(), now);
            }
        } catch (CorruptStateException incomplete) {
            log.debug("the answer for {} lacks what reading it needs: {}", debit.key(), incomplete.getMessage());
        }
        known.forget(debit.key());
        return null;
    }

    /**
     * Decides from the item itself (as a failed write returned it, or read now) and writes again with exact guesses;
     * a bucket whose stored form cannot take an update (another configuration, a passed deadline, a session to
     * start, expired slots to drop) is written whole, conditioned on its version. Lost races back off with jitter.
     *
     * @param item     the item, {@code null} when there is none, {@link StoredBucket#UNKNOWN} when it must be read
     * @param expected whether this process expected the write to be admitted (a refusal then means it lost a race,
     *                 to another process where the bucket shows writes its own calls do not account for)
     */
    private Outcome settle(BucketDebit debit, long now, String stamp, Map<String, AttributeValue> item,
            boolean expected, long horizon) {
        long started = System.nanoTime();
        for (int attempt = 0; mayRetry(attempt, started); attempt++) {
            item = retrying(attempt, debit, item);
            items.saw(debit.key(), item);
            BucketState state = StoredBucket.current(item, debit, now);
            long at = state.lastRefillMillis();           // a clock behind the last write counts from that write
            if (!debit.countOnly() && !state.admitsWithin(debit.limits(), debit.amountsMilli(), horizon)) {
                if (debit.overridden()) {
                    known.forget(debit.key());        // the state seen through an override is not the bucket's
                } else {
                    BucketState written = StoredBucket.written(item, debit, now);
                    known.learnRefusal(debit, stamp, written, now, expected && known.lostToAnother(debit, stamp,
                            written));
                }
                return new Outcome(false, state);
            }
            if (StoredBucket.needsRewrite(item, debit, stamp, at, false)) {
                BucketState next = state.debited(debit.limits(), debit.amountsMilli(), debit.countOnly(),
                        debit.leaseId());
                BucketState kept = state.debitedKept(debit.limits(), debit.kept(), debit.amountsMilli(),
                        debit.countOnly(), debit.leaseId());
                try {
                    putBucket(debit, kept, stamp, at, item, null);
                    known.learn(debit.key(), stamp, kept, at, 0);
                    return new Outcome(true, next);
                } catch (ConditionalCheckFailedException lost) {
                    item = StoredBucket.UNKNOWN;
                    continue;
                }
            }
            UpdateItemRequest request = items.admission(debit, at, stamp, state, at, horizon);
            try {
                return admitted(debit, stamp, at, request, client.updateItem(request));
            } catch (ConditionalCheckFailedException lost) {
                item = StoredBucket.returned(lost);
            }
        }
        throw contended("bucket " + debit.key(), started);
    }

    /**
     * What {@link #exchange} did: whether the call's amount was admitted, how many milli-tokens it took for the
     * process's batch, the bucket after the write (before it when refused), the process's hold entry as the item now
     * has it and its amount, and whether the hold was not what the process believed (dropped as spent, or an earlier
     * write of unknown outcome landed): the process must then hand out nothing it held before.
     */
    record Exchanged(boolean admitted, long taken, BucketState state, String entry, long entryAmount, boolean lost) {
    }

    /**
     * Marks a hold entry this process does not know (an earlier write's outcome is unknown): read the item first.
     * Compared by identity, so its own instance.
     */
    static final String UNKNOWN_ENTRY = new String("unknown");

    /**
     * One process's write to a reserving limit: admits the call's {@code amount} of {@code debit} (0 for a pure
     * return), retires {@code used} milli-tokens it handed out, returns {@code returned} unused ones and takes up to
     * {@code wanted} more for its batch, all in one conditional update. When the bucket cannot give the whole batch
     * the process takes what the item shows others can take; when it cannot cover the call, nothing is written.
     */
    Exchanged exchange(BucketDebit debit, Limit limit, String process, String oldEntry, long oldAmount, long used,
            long returned, long wanted, long expiry, long now) {
        String stamp = items.stamp(debit.kept());
        String attribute = Holds.attribute(limit.name(), process);
        long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
        boolean lost = false;
        Map<String, AttributeValue> item = oldEntry == UNKNOWN_ENTRY ? StoredBucket.UNKNOWN : null;
        boolean read = false;
        BucketState guess = known.estimate(debit, stamp, now);
        Boolean full = null;
        long want = wanted;
        if (guess != null) {
            now = guess.lastRefillMillis();               // not before the last write this process knows of
            want = wholeTokens(Math.min(want, guess.balanceMilli(limit.name()) + returned - amount));
        }
        long started = System.nanoTime();
        for (int attempt = 0; mayRetry(attempt, started); attempt++) {
            read |= item == StoredBucket.UNKNOWN;
            item = retrying(attempt, debit, item);
            if (read) {
                items.saw(debit.key(), item);
                String actual = Holds.entry(item, limit.name(), process);
                if (!Objects.equals(actual, oldEntry)) {
                    lost = true;
                    oldEntry = actual;
                    oldAmount = actual == null ? 0 : Holds.Hold.parse(actual).amount();
                    used = oldAmount;
                    returned = 0;
                }
                if (item != null && amount == 0 && wanted == 0 && !stamp.equals(ItemCodec.stampOf(item))) {
                    // a pool of limits no longer in force: it must not write the bucket under them; whatever it
                    // held is dropped as spent by the writers of the limits in force
                    return new Exchanged(false, 0, StoredBucket.current(item, debit, now), null, 0, true);
                }
                if (item != null && StoredBucket.needsRewrite(item, debit, stamp, now, false)) {
                    // the rewrite settles this process's own hold first, so that what it handed out is spent under
                    // the parameters it was taken under and what it kept is not held past a change
                    Map<String, AttributeValue> settled = Holds.settled(item, limit.name(), process, used, returned);
                    BucketState refreshed = StoredBucket.current(settled, debit, now);
                    if (refreshed.balanceMilli(limit.name()) < amount) {
                        // refused: like every refusal it writes nothing, so that a balance the rewrite would clip
                        // to a lowered capacity is not clipped for good (the in-memory store writes no refusal)
                        known.learnRefusal(debit, stamp, StoredBucket.written(settled, debit, now), now, false);
                        return new Exchanged(false, 0, refreshed, oldEntry, oldAmount, lost);
                    }
                    var put = items.put(debit, refreshed, stamp, refreshed.lastRefillMillis(), settled, null);
                    try {
                        client.putItem(put);
                        item = put.item();
                    } catch (ConditionalCheckFailedException raced) {
                        item = StoredBucket.UNKNOWN;
                        continue;
                    }
                    oldEntry = Holds.entry(item, limit.name(), process);
                    oldAmount = oldEntry == null ? 0 : Holds.Hold.parse(oldEntry).amount();
                    used = 0;
                    returned = 0;
                }
                guess = StoredBucket.current(item, debit, now);
                now = guess.lastRefillMillis();               // a clock behind the last write counts from it
                long available = guess.balanceMilli(limit.name());
                if (available + returned < amount) {
                    known.learnRefusal(debit, stamp, StoredBucket.written(item, debit, now), now, false);
                    return new Exchanged(false, 0, guess, oldEntry, oldAmount, lost);
                }
                want = wholeTokens(Math.min(wanted, available + returned - amount));
                full = Holds.full(item, limit.name(), Limits.parametersAt(limit, now), now);
            }
            long newAmount = oldAmount - used - returned + want;
            String newEntry = newAmount > 0 ? new Holds.Hold(newAmount, expiry).value() : null;
            UpdateItemRequest request = items.update(debit, now, stamp, guess, false, null,
                    new Holds.Exchange(limit.name(), attribute, oldEntry, used, returned, want, newEntry), full);
            if (request == null) {
                BucketState state = guess != null ? guess : StoredBucket.current(getItem(debit), debit, now);
                return new Exchanged(false, 0, state, oldEntry, oldAmount, lost);
            }
            try {
                UpdateItemResponse response = client.updateItem(request);
                items.saw(debit.key(), response.attributes());
                BucketState state = StoredBucket.decoded(response.attributes(), debit.limits(), now);
                known.learn(debit.key(), stamp, state, now, 0);
                if (Holds.droppable(response.attributes(), debit.limits(), now)) {
                    dropSpentHolds(debit, stamp, now, response.attributes());
                }
                return new Exchanged(true, want, state, newEntry, newAmount, lost);
            } catch (ConditionalCheckFailedException e) {
                item = StoredBucket.returned(e);
                read = item != StoredBucket.UNKNOWN;
            }
        }
        throw contended("bucket " + debit.key(), started);
    }

    /** Milli-tokens rounded down to whole tokens (a batch of calls that take whole tokens strands no fraction). */
    private static long wholeTokens(long milli) {
        return milli <= 0 ? 0 : milli - milli % Limits.MILLI;
    }

    /**
     * Rewrites a bucket whose item holds a hold past its expiry and grace (a process that died holding tokens), so
     * that the hold counts as spent and the bucket refills past it; a lost race leaves it to the next writer.
     */
    private void dropSpentHolds(BucketDebit debit, String stamp, long now, Map<String, AttributeValue> item) {
        try {
            client.putItem(items.put(debit, StoredBucket.current(item, debit, now), stamp, now, item, null));
            known.forget(debit.key());
        } catch (ConditionalCheckFailedException raced) {
            log.debug("another process wrote {} first; it drops the spent holds", debit.key());
        }
    }

    /**
     * Whether a write may make attempt number {@code attempt} (from 0) of a loop that started at {@code startedNanos}:
     * the first always, later ones until {@link #CONTENTION_DEADLINES} request deadlines have passed.
     */
    boolean mayRetry(int attempt, long startedNanos) {
        return attempt == 0 || System.nanoTime() - startedNanos < contentionBudgetNanos;
    }

    /** The failure of a write to {@code what} that lost every race since {@code startedNanos}. */
    static StoreUnavailableException contended(String what, long startedNanos) {
        return new Contended("DynamoDB store gave up on " + what + ": other writers won every race for "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos) + " ms");
    }

    /** A write that spent its whole contention budget: not retried again, which would restart the budget. */
    static final class Contended extends StoreUnavailableException {

        Contended(String message) {
            super(message, null);
        }
    }

    /**
     * The item attempt number {@code attempt} (from 0) of a write loop starts from, after backing off from the
     * second retry on: {@code item}, read now when it is {@link StoredBucket#UNKNOWN}.
     */
    private Map<String, AttributeValue> retrying(int attempt, BucketDebit debit, Map<String, AttributeValue> item) {
        if (attempt > 1) {
            backOff(attempt);
        }
        return item == StoredBucket.UNKNOWN ? getItem(debit) : item;
    }

    /** Sleeps a few jittered milliseconds, more after each lost race, so that contenders spread out. */
    static void backOff(int attempt) {
        long bound = Math.min(1L << Math.min(attempt, 5), 32);
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(bound + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while retrying a contended bucket", e);
        }
    }

    /** As above, also writing a correction's {@code marker} (when not {@code null}). */
    private void putBucket(BucketDebit debit, BucketState state, String stamp, long now,
            Map<String, AttributeValue> previous, String marker) {
        client.putItem(items.put(debit, state, stamp, now, previous, marker));
    }

    Map<String, AttributeValue> getItem(BucketDebit debit) {
        var response = client.getItem(b -> b.tableName(items.table()).key(items.key(debit)).consistentRead(true));
        return response.hasItem() && !response.item().isEmpty() ? response.item() : null;
    }

    BucketState read(BucketDebit debit, long now) {
        return StoredBucket.current(getItem(debit), debit, now);
    }

    /**
     * Applies a correction exactly once, trying again while the store fails (a few times, backing off). The write
     * carries a marker attribute naming it, so that a retry of a write whose first attempt landed unseen (a timeout)
     * finds the marker and stops; a marker is removed by this process's next write to the bucket, and a whole
     * rewrite drops markers older than a minute.
     */
    void applyOnce(BucketDebit debit, long now) {
        applyOnce(debit, now, false);
    }

    /**
     * As {@link #applyOnce(BucketDebit, long)} for a refund, what a refused call took given back: it also takes
     * back the slots that the call counted as consumed, as if the call had never taken them.
     */
    void refundOnce(BucketDebit debit, long now) {
        applyOnce(debit, now, true);
    }

    private void applyOnce(BucketDebit debit, long now, boolean refund) {
        String marker = Long.toHexString(ThreadLocalRandom.current().nextLong());
        for (int attempt = 1; ; attempt++) {
            try {
                apply(debit, now, marker, refund);
                items.landed(debit.key(), marker);
                return;
            } catch (SdkException | StoreUnavailableException e) {
                if (attempt >= CORRECTION_ATTEMPTS || e instanceof Contended) {
                    throw e;
                }
                backOff(attempt + 3);
            }
        }
    }

    /** Renews the lease's slots on every debit; false when one of them no longer holds its slot. */
    boolean renew(List<BucketDebit> debits, long now) {
        boolean held = true;
        for (BucketDebit given : debits) {
            BucketDebit debit = given.shared();
            Expression e = new Expression();
            for (Limit limit : debit.limits()) {
                if (limit.isConcurrency() && debit.amountsMilli().getOrDefault(limit.name(), 0L) > 0) {
                    String slot = e.name(ItemCodec.HOLDERS + limit.name()) + "." + e.name(debit.leaseId());
                    e.set.add(slot + " = " + e.value(ItemCodec.number(now
                            + limit.leaseTimeout().orElseThrow().toMillis())));
                    e.onItem.add("attribute_exists(" + slot + ")");
                }
            }
            if (e.onItem.length() == 0) {
                continue;
            }
            try {
                client.updateItem(b -> b.tableName(items.table()).key(items.key(debit))
                        .updateExpression(e.update()).conditionExpression(e.onItem.toString())
                        .expressionAttributeNames(e.names()).expressionAttributeValues(e.values));
            } catch (ConditionalCheckFailedException expired) {
                held = false;
            }
        }
        return held;
    }

    /**
     * Applies an adjustment or rollback in one update guessed from what this process knows; a wrong guess is settled
     * from the item like an admission, and a bucket whose stored form cannot take an update is written whole.
     */
    void apply(BucketDebit debit, long now) {
        apply(debit, now, null, false);
    }

    /**
     * As {@link #apply(BucketDebit, long)}; with a {@code marker}, nothing is done if the item already has it; a
     * {@code refund} ({@link #refundOnce}) also takes back the consumption of the slots it gives back.
     */
    private void apply(BucketDebit given, long now, String marker, boolean refund) {
        BucketDebit debit = given.shared();
        String stamp = items.stamp(debit.limits());
        BucketState guess = known.estimate(debit, stamp, now);
        long guessedAt = guess == null ? now : guess.lastRefillMillis();
        Map<String, AttributeValue> item;
        UpdateItemRequest first = items.update(debit, guessedAt, stamp, guess, marker, refund);
        try {
            corrected(debit, stamp, guessedAt, first, client.updateItem(first));
            return;
        } catch (ConditionalCheckFailedException e) {
            item = StoredBucket.returned(e);
        }
        long started = System.nanoTime();
        for (int attempt = 0; mayRetry(attempt, started); attempt++) {
            item = retrying(attempt, debit, item);
            if (marker != null && item != null && item.containsKey(ItemCodec.MARKER + marker)) {
                known.forget(debit.key());
                return;
            }
            items.saw(debit.key(), item);
            BucketState state = StoredBucket.current(item, debit, now);
            long at = state.lastRefillMillis();
            if (StoredBucket.needsRewrite(item, debit, stamp, at, true)) {
                BucketState adjusted = state.adjusted(debit.limits(), debit.amountsMilli(), debit.countOnly(),
                        debit.leaseId());
                BucketState next = refund ? slotsRefunded(adjusted, debit) : adjusted;
                try {
                    putBucket(debit, next, stamp, at, item, marker);
                    known.learn(debit.key(), stamp, next, at, 0);
                    return;
                } catch (ConditionalCheckFailedException lost) {
                    item = StoredBucket.UNKNOWN;
                    continue;
                }
            }
            UpdateItemRequest request = items.update(debit, at, stamp, state, marker, refund);
            try {
                corrected(debit, stamp, at, request, client.updateItem(request));
                return;
            } catch (ConditionalCheckFailedException lost) {
                item = StoredBucket.returned(lost);
            }
        }
        throw contended("adjusting bucket " + debit.key(), started);
    }

    /** {@code state} with the consumption of the slots that {@code refund} gives back taken back. */
    private static BucketState slotsRefunded(BucketState state, BucketDebit refund) {
        Map<String, LimitState> limits = new HashMap<>(state.limits());
        for (Limit limit : refund.limits()) {
            long amount = refund.amountsMilli().getOrDefault(limit.name(), 0L);
            LimitState s = limits.get(limit.name());
            if (limit.isConcurrency() && amount < 0 && s != null) {
                limits.put(limit.name(), new LimitState(s.balanceMilli(), s.consumedMilli() + amount,
                        s.windowStartMillis(), s.holders()));
            }
        }
        return new BucketState(state.lastRefillMillis(), limits);
    }

    private void corrected(BucketDebit debit, String stamp, long now, UpdateItemRequest request,
            UpdateItemResponse response) {
        BucketState state = answered(debit, now, request, response);
        if (state != null) {
            known.learn(debit.key(), stamp, state, now, 0);
        }
    }
}
