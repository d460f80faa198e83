package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.BucketState;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * The buckets: each decision is computed here from the state this process last saw of every bucket it touches
 * ({@link Seen}), with the rules of {@link BucketState}, and sent as one {@code bucket.lua} run ({@link BucketScript})
 * that writes every bucket only if none changed since (all or nothing). When one did, the answer carries every bucket
 * as it is, and the decision is made again from that: no bucket is read before a decision. Threads of this process
 * take turns per bucket ({@link Turns}), so that only other processes' writes make a decision go round again. A call
 * refused on buckets this process learned less than {@link KnownBucket#LOCAL_REFUSAL_MILLIS} ago is refused without a
 * round trip, unless it takes concurrency slots or touches a scheduled limit.
 */
final class Buckets {

    /** What one decision writes ({@code null}: nothing, for that bucket) and what the caller gets. */
    private record Outcome<T>(T result, BucketState[] writes) {
    }

    /** One decision over the buckets refilled to its instant. */
    private interface Decision<T> {
        Outcome<T> decide(BucketState[] refilled);
    }

    /**
     * How the script's decide mode serves a decision ({@link ServerDecision}): its mode, and the caller's result
     * of a call it admitted, from the states it wrote.
     */
    private record OnServer<T>(String mode, Function<BucketState[], T> admitted) {
    }

    private final RedisCalls redis;
    private final Keys keys;
    private final long retryNanos;
    private final ServerDecision server = new ServerDecision();
    private final Contention contention = new Contention();
    private final Seen seen = new Seen();
    private final Turns turns;
    private final BucketScript script;
    private final LongAdder writeModeRuns = new LongAdder();
    /** Whether the script is sent this process's own decision to write when the buckets are as it knew them. */
    private volatile boolean shortcuts = true;

    Buckets(RedisCalls redis, Keys keys, LongConsumer configVersion, long retryNanos, long turnNanos) {
        this.redis = redis;
        this.keys = keys;
        this.retryNanos = retryNanos;
        this.turns = new Turns(keys, turnNanos);
        this.script = new BucketScript(redis, keys, configVersion, server, seen);
    }

    AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        OnServer<AcquireResult> onServer = new OnServer<>(ServerDecision.ACQUIRE, written -> {
            List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
            for (int i = 0; i < written.length; i++) {
                snapshots.add(new BucketSnapshot(debits.get(i).key(), written[i]));
            }
            return new AcquireResult(true, snapshots);
        });
        return decide(debits, now, onServer, refilled -> {
            boolean admitted = true;
            for (int i = 0; i < debits.size() && admitted; i++) {
                BucketDebit debit = debits.get(i);
                admitted = debit.countOnly() || refilled[i].admits(debit.limits(), debit.amountsMilli());
            }
            BucketState[] writes = new BucketState[debits.size()];
            List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
            for (int i = 0; i < debits.size(); i++) {
                BucketDebit d = debits.get(i);
                BucketState state = refilled[i];
                if (admitted) {
                    writes[i] = state.debitedKept(d.limits(), d.kept(), d.amountsMilli(), d.countOnly(), d.leaseId());
                    state = d.overridden() ? state.debited(d.limits(), d.amountsMilli(), d.countOnly(), d.leaseId())
                            : writes[i];                    // kept under the same limits: the same state
                }
                snapshots.add(new BucketSnapshot(d.key(), state));
            }
            return new Outcome<>(new AcquireResult(admitted, snapshots), writes);
        });
    }

    void apply(List<BucketDebit> debits, long now) {
        decide(debits, now, new OnServer<>(ServerDecision.ADJUST, written -> null), refilled -> {
            BucketState[] writes = new BucketState[debits.size()];
            for (int i = 0; i < writes.length; i++) {
                BucketDebit d = debits.get(i);
                writes[i] = refilled[i].adjusted(d.limits(), d.amountsMilli(), d.countOnly(), d.leaseId());
            }
            return new Outcome<>(null, writes);
        });
    }

    boolean renew(List<BucketDebit> debits, long now) {
        return decide(debits, now, null, refilled -> {
            boolean held = true;
            BucketState[] writes = new BucketState[debits.size()];
            for (int i = 0; i < writes.length; i++) {
                BucketDebit d = debits.get(i);
                held &= refilled[i].holds(d.limits(), d.amountsMilli(), d.leaseId());
                writes[i] = refilled[i].renewed(d.limits(), d.leaseId());
            }
            return new Outcome<>(held, writes);
        });
    }

    List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
        // what it learns must not overwrite a later decision's
        int[] held = turns.lock(keysOf(debits));
        try {
            KnownBucket[] known = seen.known(debits);
            KnownBucket[] current = script.send(debits, known, null, now, new boolean[debits.size()]);
            if (current != null && askAgain(current, now)) {
                // to extend a key that goes too soon
                KnownBucket[] again = script.send(debits, current, null, now, new boolean[debits.size()]);
                current = again == null ? current : again;
            }
            KnownBucket[] used = current == null ? known : current;
            List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
            for (int i = 0; i < debits.size(); i++) {
                snapshots.add(new BucketSnapshot(debits.get(i).key(), used[i].refilled(debits.get(i), now)));
            }
            return snapshots;
        } finally {
            turns.unlock(held);
        }
    }

    void delete(BucketKey key) {
        int[] held = turns.lock(List.of(key));
        try {
            redis.call(r -> r.del(keys.bucket(key)));
            seen.forget(key);
        } finally {
            turns.unlock(held);
        }
    }

    /**
     * Makes every bucket this process knows too old for a refusal without a round trip, so that its next call on
     * each asks Redis: for tests that compare several processes with one store.
     */
    void expireLocalRefusals() {
        seen.expireLocalRefusals();
    }

    /** Forgets what this process saw of {@code entityId}'s buckets (they were deleted). */
    void forget(String entityId) {
        List<BucketKey> known = seen.keysOf(entityId);
        int[] held = turns.lock(known);                  // a decision in flight on one remembers it before this
        try {
            known.forEach(seen::forget);
        } finally {
            turns.unlock(held);
        }
    }

    /**
     * Decides {@code debits} at {@code now}: refused without a round trip where the buckets as this process knows
     * them allow; else by the script from the buckets as stored where {@code onServer} is given and the script can
     * ({@link ServerDecision}); else, or when the script finds a bucket outside what it decides, by a conditional
     * write of what {@code decision} computed, going round while other processes write first.
     */
    private <T> T decide(List<BucketDebit> debits, long now, OnServer<T> onServer, Decision<T> decision) {
        int[] held = turns.lock(keysOf(debits));
        try {
            long deadline = System.nanoTime() + retryNanos;
            KnownBucket[] known = seen.known(debits);
            boolean decidable = onServer != null && ServerDecision.applies(debits, now) && script.oneSlot(debits);
            boolean byScript = decidable && !server.outdated(debits, known, now);
            SlotsWritten done = new SlotsWritten(debits.size());
            for (int lost = 0; ; lost++) {
                BucketState[] refilled = done.onBasis(refilled(debits, known, now));
                Outcome<T> outcome = decision.decide(refilled);
                Outcome<T> local = writesNothing(outcome) || !contention.any(debits, now) ? outcome
                        : decision.decide(Contention.contested(debits, known, now));
                if (refusedOnRecentStates(local, known, now) && refusableLocally(debits)) {
                    giveBack(debits, done, now);
                    return local.result();
                }
                if (byScript) {
                    BucketScript.ServerAnswer answer = script.decide(debits, onServer.mode(), now, known,
                            shortcuts && writesAll(outcome) ? outcome.writes() : null);
                    if (answer.asSent()) {
                        return outcome.result();
                    }
                    if (answer.written() != null) {
                        return onServer.admitted().apply(answer.written());
                    }
                    if (answer.refused() && !writesNothing(outcome)) {
                        contention.lost(debits, now);
                    }
                    byScript = false;
                    decidable = answer.refused();
                    known = answer.current();
                    Outcome<T> again = decision.decide(refilled(debits, known, now));
                    if (answer.refused() ? writesNothing(again) : refusedOnRecentStates(again, known, now)) {
                        return again.result();
                    }
                    continue;
                }
                writeModeRuns.increment();
                BucketState[] writes = done.unwritten(outcome.writes());
                boolean[] written = new boolean[debits.size()];
                KnownBucket[] current;
                try {
                    current = script.send(debits, known, writes, now, written);
                } catch (StoreUnavailableException e) {
                    done.mark(written, refilled);                 // the slots that answered
                    giveBack(debits, done, now);
                    throw e;
                }
                done.mark(written, refilled);
                if (current == null) {
                    if (writesNothing(outcome)) {
                        giveBack(debits, done, now);
                    }
                    return outcome.result();
                }
                if (!writesNothing(outcome)) {
                    contention.lost(debits, now);
                }
                if (System.nanoTime() - deadline > 0) {
                    giveBack(debits, done, now);
                    throw new StoreUnavailableException("other processes kept writing the buckets "
                            + keyNamesOf(debits) + " for " + retryNanos / 1_000_000 + " ms: no decision could be written", null);
                }
                known = current;
                byScript = decidable && !server.outdated(debits, known, now);
                if (!byScript) {
                    pause(lost, deadline);
                }
            }
        } finally {
            turns.unlock(held);
        }
    }

    /**
     * After the {@code lost}-th lost race in write mode (0: the first), waits a random time of up to 2<sup>lost</sup>
     * ms (at most 32, and never past {@code deadline}), so that writers that do not wait for tokens (the decide
     * mode, another process's) leave a gap.
     */
    private static void pause(int lost, long deadline) {
        long bound = Math.min(TimeUnit.MILLISECONDS.toNanos(1L << Math.min(lost, 5)), deadline - System.nanoTime());
        if (bound > 1) {
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1, bound));
        }
    }

    /**
     * Makes the script decide every call it can from the buckets as stored, never sent this process's own decision
     * (for tests of the script's arithmetic).
     */
    void withoutShortcuts() {
        shortcuts = false;
    }

    /** How many decisions' runs were in write mode, whatever they answered (for tests). */
    long writeModeRuns() {
        return writeModeRuns.sum();
    }

    /**
     * Gives back what this call took from the buckets it wrote before the rest was refused: possible only where a
     * call's buckets lie in several slots of a cluster, whose runs are written apart.
     */
    private void giveBack(List<BucketDebit> debits, SlotsWritten done, long now) {
        for (BucketDebit back : done.givingBack(debits)) {
            apply(List.of(back), now);
        }
    }

    private static BucketState[] refilled(List<BucketDebit> debits, KnownBucket[] known, long now) {
        BucketState[] refilled = new BucketState[known.length];
        for (int i = 0; i < known.length; i++) {
            refilled[i] = known[i].refilled(debits.get(i), now);
        }
        return refilled;
    }

    /** Whether one of {@code current} must be asked again (its key goes too soon) though just learned. */
    private static boolean askAgain(KnownBucket[] current, long now) {
        for (KnownBucket s : current) {
            if (!s.recent(now)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code outcome} writes nothing (a refusal) and every bucket it was decided on was learned lately. */
    private static boolean refusedOnRecentStates(Outcome<?> outcome, KnownBucket[] known, long now) {
        for (int i = 0; i < known.length; i++) {
            if (!known[i].recent(now)) {
                return false;
            }
        }
        return writesNothing(outcome);
    }

    private static boolean writesAll(Outcome<?> outcome) {
        for (BucketState write : outcome.writes()) {
            if (write == null) {
                return false;
            }
        }
        return true;
    }

    private static boolean writesNothing(Outcome<?> outcome) {
        for (BucketState write : outcome.writes()) {
            if (write != null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a refusal of {@code debits} may be made on what this process knows, as on DynamoDB: not when one takes
     * concurrency slots (a slot another process gave back must be usable at once) or touches a scheduled limit (its
     * refill depends on when the bucket was last written, which another process may have done).
     */
    private static boolean refusableLocally(List<BucketDebit> debits) {
        for (BucketDebit debit : debits) {
            if (debit.takesSlots()) {
                return false;
            }
            for (Limit limit : debit.limits()) {
                if (!limit.schedule().isEmpty() && debit.amountsMilli().getOrDefault(limit.name(), 0L) != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    private static List<BucketKey> keysOf(List<BucketDebit> debits) {
        if (debits.size() == 1) {
            return List.of(debits.get(0).key());
        }
        List<BucketKey> keys = new ArrayList<>(debits.size());
        for (BucketDebit debit : debits) {
            keys.add(debit.key());
        }
        return keys;
    }

    private String keyNamesOf(List<BucketDebit> debits) {
        return debits.stream().map(d -> keys.bucket(d.key())).toList().toString();
    }
}
