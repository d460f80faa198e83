package dev.zaelimiter.store.redis;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * The buckets: each decision is computed here from the state this process last saw of every bucket it touches,
 * with the rules of {@link BucketState}, and sent as one {@code bucket.lua} run that writes every bucket only if none
 * changed since (all or nothing). When one did, the answer carries every bucket as it is, and the decision is made
 * again from that: no bucket is read before a decision. Threads of this process take turns per bucket, so that only
 * other processes' writes make a decision go round again. A call refused on buckets this process learned less than
 * {@link #LOCAL_REFUSAL_MILLIS} ago is refused without a round trip, unless it takes concurrency slots or touches a
 * scheduled limit.
 */
final class Buckets {

    private static final RedisCalls.Script SCRIPT = RedisCalls.Script.load("bucket");
    private static final int MAX_KNOWN = 100_000;
    private static final int STRIPES = 256;
    /**
     * How long a refusal decided on a bucket as this process last saw it stands without a round trip: other
     * processes can only have taken tokens since (or, rarely, given some back), so it errs only towards refusing.
     */
    static final long LOCAL_REFUSAL_MILLIS = 1_000;

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

    /**
     * What a run in decide mode answered: the states it wrote, or (nothing written) the buckets as they are and
     * whether it refused the call on them (else it declined to decide).
     */
    private record ServerAnswer(BucketState[] written, KnownBucket[] current, boolean refused) {
    }

    private final RedisCalls redis;
    private final Keys keys;
    private final LongConsumer configVersion;
    private final long retryNanos;
    private final long turnNanos;
    private final ServerDecision server = new ServerDecision();
    private final Contention contention = new Contention();
    private final ConcurrentHashMap<BucketKey, KnownBucket> seen = new ConcurrentHashMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final LongAdder writeModeRuns = new LongAdder();

    Buckets(RedisCalls redis, Keys keys, LongConsumer configVersion, long retryNanos, long turnNanos) {
        this.redis = redis;
        this.keys = keys;
        this.configVersion = configVersion;
        this.retryNanos = retryNanos;
        this.turnNanos = turnNanos;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
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
                    state = state.debited(d.limits(), d.amountsMilli(), d.countOnly(), d.leaseId());
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
        int[] held = lock(debits.stream().map(BucketDebit::key).toList());                  // what it learns must not overwrite a later decision's
        try {
            KnownBucket[] known = known(debits);
            KnownBucket[] current = send(debits, known, null, now, new boolean[debits.size()]);
            if (current != null && askAgain(current, now)) {
                // to extend a key that goes too soon
                KnownBucket[] again = send(debits, current, null, now, new boolean[debits.size()]);
                current = again == null ? current : again;
            }
            KnownBucket[] used = current == null ? known : current;
            List<BucketSnapshot> snapshots = new ArrayList<>(debits.size());
            for (int i = 0; i < debits.size(); i++) {
                snapshots.add(new BucketSnapshot(debits.get(i).key(), refilled(debits.get(i), used[i], now)));
            }
            return snapshots;
        } finally {
            unlock(held);
        }
    }

    void delete(BucketKey key) {
        int[] held = lock(List.of(key));
        try {
            redis.call(r -> r.del(keys.bucket(key)));
            seen.remove(key);
        } finally {
            unlock(held);
        }
    }

    /**
     * Makes every bucket this process knows too old for a refusal without a round trip, so that its next call on
     * each asks Redis: for tests that compare several processes with one store.
     */
    void expireLocalRefusals() {
        seen.replaceAll((key, known) -> known.learned(Long.MIN_VALUE));
    }

    /** Forgets what this process saw of {@code entityId}'s buckets (they were deleted). */
    void forget(String entityId) {
        List<BucketKey> known = seen.keySet().stream().filter(key -> key.entityId().equals(entityId)).toList();
        int[] held = lock(known);                        // a decision in flight on one remembers it before this
        try {
            known.forEach(seen::remove);
        } finally {
            unlock(held);
        }
    }

    /**
     * Decides {@code debits} at {@code now}: refused without a round trip where the buckets as this process knows
     * them allow; else by the script from the buckets as stored where {@code onServer} is given and the script can
     * ({@link ServerDecision}); else, or when the script finds a bucket outside what it decides, by a conditional
     * write of what {@code decision} computed, going round while other processes write first.
     */
    private <T> T decide(List<BucketDebit> debits, long now, OnServer<T> onServer, Decision<T> decision) {
        int[] held = lock(debits.stream().map(BucketDebit::key).toList());
        try {
            long deadline = System.nanoTime() + retryNanos;
            KnownBucket[] known = known(debits);
            boolean decidable = onServer != null && ServerDecision.applies(debits, now) && oneSlot(debits);
            boolean byScript = decidable && !server.outdated(debits, known, now);
            boolean[] done = new boolean[debits.size()];     // written by this call (buckets in several slots)
            BucketState[] basis = new BucketState[debits.size()];
            for (int lost = 0; ; lost++) {
                BucketState[] refilled = refilled(debits, known, now);
                for (int i = 0; i < refilled.length; i++) {
                    refilled[i] = done[i] ? basis[i] : refilled[i];
                }
                Outcome<T> outcome = decision.decide(refilled);
                Outcome<T> local = writesNothing(outcome) || !contention.any(debits, now) ? outcome
                        : decision.decide(Contention.contested(debits, known, now));
                if (refusedOnRecentStates(local, known, now) && refusableLocally(debits)) {
                    giveBack(debits, done, now);
                    return local.result();
                }
                if (byScript) {
                    ServerAnswer answer = decideOnServer(debits, onServer.mode(), now);
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
                BucketState[] writes = outcome.writes().clone();
                for (int i = 0; i < writes.length; i++) {
                    writes[i] = done[i] ? null : writes[i];
                }
                boolean[] written = new boolean[debits.size()];
                KnownBucket[] current;
                try {
                    current = send(debits, known, writes, now, written);
                } catch (StoreUnavailableException e) {
                    giveBack(debits, done(done, written, basis, refilled), now);   // the slots that answered
                    throw e;
                }
                done(done, written, basis, refilled);
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
                    throw new StoreUnavailableException("other processes kept writing the buckets " + keysOf(debits)
                            + " for " + retryNanos / 1_000_000 + " ms: no decision could be written", null);
                }
                known = current;
                byScript = decidable && !server.outdated(debits, known, now);
                if (!byScript) {
                    pause(lost, deadline);
                }
            }
        } finally {
            unlock(held);
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

    /** How many decisions' runs were in write mode, whatever they answered (for tests). */
    long writeModeRuns() {
        return writeModeRuns.sum();
    }

    /** Whether every bucket of {@code debits} lies in one slot (always, off a cluster). */
    private boolean oneSlot(List<BucketDebit> debits) {
        return redis.bySlot(debits.stream().map(d -> keys.bucket(d.key())).toList()).size() == 1;
    }

    /** Marks the buckets {@code written} as {@code done}, decided on {@code refilled}; answers {@code done}. */
    private static boolean[] done(boolean[] done, boolean[] written, BucketState[] basis, BucketState[] refilled) {
        for (int i = 0; i < written.length; i++) {
            if (written[i]) {
                done[i] = true;
                basis[i] = refilled[i];
            }
        }
        return done;
    }

    /**
     * Gives back what this call took from the buckets it wrote ({@code done}) before the rest was refused: possible
     * only where a call's buckets lie in several slots of a cluster, whose runs are written apart. As a lease's
     * rollback does, and as the DynamoDB store compensates a cascade: tokens and slots back, capped at the capacity.
     */
    private void giveBack(List<BucketDebit> debits, boolean[] done, long now) {
        for (int i = 0; i < done.length; i++) {
            if (done[i]) {
                BucketDebit d = debits.get(i).shared();
                Map<String, Long> back = new HashMap<>();
                d.amountsMilli().forEach((limit, amount) -> back.put(limit, -amount));
                apply(List.of(d.withAmounts(back)), now);
            }
        }
    }

    private static BucketState[] refilled(List<BucketDebit> debits, KnownBucket[] known, long now) {
        BucketState[] refilled = new BucketState[known.length];
        for (int i = 0; i < known.length; i++) {
            refilled[i] = refilled(debits.get(i), known[i], now);
        }
        return refilled;
    }

    /** One run of the script in decide mode ({@link ServerDecision}) for {@code debits} at {@code now}. */
    private ServerAnswer decideOnServer(List<BucketDebit> debits, String mode, long now) {
        List<String> k = new ArrayList<>(debits.size() + 1);
        List<String> args = new ArrayList<>(3 + debits.size() * 20);
        args.add(Integer.toString(debits.size()));
        args.add(versionFlag());
        args.add(Long.toString(now));
        String[] tokens = new String[debits.size()];
        for (int i = 0; i < debits.size(); i++) {
            k.add(keys.bucket(debits.get(i).key()));
            tokens[i] = newToken();
            server.arguments(args, debits.get(i), tokens[i], mode, now);
        }
        List<Object> reply = redis.runVersioned(SCRIPT, k, args, keys.configVersion());
        long code = (Long) reply.get(0);
        if (code == -2L) {
            BucketKey key = debits.get(((Long) reply.get(2)).intValue() - 1).key();
            throw corrupt(key, String.valueOf(reply.get(3)), null);
        }
        version(reply);
        if (code != 1L) {
            KnownBucket[] current = new KnownBucket[debits.size()];
            current(debits, all(debits.size()), reply, now, current);
            return new ServerAnswer(null, current, code == 0L);
        }
        BucketState[] written = new BucketState[debits.size()];
        for (int i = 0; i < written.length; i++) {
            BucketDebit d = debits.get(i);
            KnownBucket stored = read(d.key(), tokens[i], (String) reply.get(2 + i), "0", "", "");
            long at = stored.state().lastRefillMillis();                        // later than now: the last write's
            written[i] = stored.state();
            remember(d.key(), new KnownBucket(tokens[i], BucketLife.endsAfter(d.limits(), at), written[i],
                    Set.of(), now, server.stamp(d.limits()), ServerDecision.deadline(d.limits(), at)));
        }
        return new ServerAnswer(written, null, false);
    }

    private void version(List<Object> reply) {
        String version = String.valueOf(reply.get(1));
        if (!version.isEmpty()) {
            configVersion.accept(Long.parseLong(version));
        }
    }

    /**
     * {@code bucket.lua}'s second argument: on one Redis it reads the configuration version too; on a cluster, where
     * the version lies in another slot, a {@code GET} in flight with it does.
     */
    private String versionFlag() {
        return redis.cluster() ? "" : "1";
    }

    private static int[] all(int n) {
        return java.util.stream.IntStream.range(0, n).toArray();
    }

    private static String newToken() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() | 1L);
    }

    private KnownBucket[] known(List<BucketDebit> debits) {
        KnownBucket[] known = new KnownBucket[debits.size()];
        for (int i = 0; i < known.length; i++) {
            known[i] = seen.getOrDefault(debits.get(i).key(), KnownBucket.ABSENT);
        }
        return known;
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

    /** The bucket as {@code known} holds it (a bucket whose life ended reads as new), refilled to {@code now}. */
    static BucketState refilled(BucketDebit debit, KnownBucket known, long now) {
        if (known.state() == null || known.endsAfter() <= now && BucketLife.ended(known.endsAfter(),
                known.takenAs(debit.kept()).refilled(debit.kept(), now), debit.kept(), now)) {
            return BucketState.fresh(debit.limits(), now);
        }
        return known.takenAs(debit.limits()).refilled(debit.limits(), now);
    }

    /**
     * Sends one decision: {@code writes} (null, or null entries: nothing written) conditioned on {@code known}; a
     * bucket not written has its key's expiry extended where it goes too soon for the limits in force. Returns
     * {@code null} when every token matched (and the writes were made), else the buckets as the server holds them
     * (also remembered), of which those whose key goes too soon are marked to be asked again. Buckets in several
     * slots of a cluster get one run per slot, all in flight together: each is written or not on its own, and
     * {@code written} says which were.
     */
    private KnownBucket[] send(List<BucketDebit> debits, KnownBucket[] known, BucketState[] writes, long now,
            boolean[] written) {
        int n = debits.size();
        List<String> k = new ArrayList<>(n);
        List<List<String>> perBucket = new ArrayList<>(n);
        String[] tokens = new String[n];
        for (int i = 0; i < n; i++) {
            BucketDebit d = debits.get(i);
            k.add(keys.bucket(d.key()));
            List<String> args = new ArrayList<>(7);
            perBucket.add(args);
            args.add(known[i].token());
            BucketState write = writes == null ? null : writes[i];
            if (write == null) {
                long needed = neededTtl(d, known[i], now);
                args.addAll(List.of("", "", "", needed < 0 ? "" : Long.toString(needed), "", ""));
                continue;
            }
            tokens[i] = newToken();
            long endsAfter = BucketLife.endsAfter(d.kept(), write.lastRefillMillis());
            args.add(tokens[i]);
            args.add(Codec.state(write, Codec.slotLimits(d.kept())));
            args.add(Long.toString(endsAfter));
            args.add(Long.toString(Expiry.timeToLive(write, d.kept(), endsAfter, now)));
            args.add(server.stamp(d.kept()));
            args.add(ServerDecision.text(ServerDecision.deadline(d.kept(), write.lastRefillMillis())));
        }
        List<int[]> groups = redis.bySlot(k);
        List<List<Object>> replies = new ArrayList<>(groups.size());
        StoreUnavailableException failure = null;            // of one slot's run: the others' writes are marked
        if (groups.size() == 1) {
            replies.add(redis.runVersioned(SCRIPT, k, runArgs(groups.get(0), perBucket), keys.configVersion()));
        } else {
            List<RedisCalls.Run> runs = new ArrayList<>();
            for (int[] group : groups) {
                runs.add(new RedisCalls.Run(SCRIPT, Arrays.stream(group).mapToObj(k::get).toList(),
                        runArgs(group, perBucket)));
            }
            List<Object> answers = redis.each(runs, List.of(keys.configVersion()));
            Object version = answers.get(groups.size());
            for (int j = 0; j < groups.size(); j++) {
                if (answers.get(j) instanceof StoreUnavailableException failed) {
                    failure = failed;
                    replies.add(null);
                    continue;
                }
                @SuppressWarnings("unchecked")
                List<Object> reply = new ArrayList<>((List<Object>) answers.get(j));
                reply.set(1, RedisCalls.version(version));
                replies.add(reply);
            }
        }
        KnownBucket[] current = null;
        for (int j = 0; j < groups.size(); j++) {
            int[] group = groups.get(j);
            List<Object> reply = replies.get(j);
            if (reply == null) {
                continue;
            }
            version(reply);
            if (((Long) reply.get(0)) == 1L) {
                for (int i : group) {
                    written[i] = tokens[i] != null;
                    List<Limit> kept = debits.get(i).kept();
                    long at = tokens[i] == null ? 0 : writes[i].lastRefillMillis();
                    remember(debits.get(i).key(), tokens[i] == null ? known[i].learned(now) : new KnownBucket(
                            tokens[i], BucketLife.endsAfter(kept, at), writes[i], Codec.slotLimits(kept), now,
                            server.stamp(kept), ServerDecision.deadline(kept, at)));
                }
                continue;
            }
            current = current == null ? new KnownBucket[n] : current;
            current(debits, group, reply, now, current);
        }
        if (failure != null) {
            throw failure;
        }
        if (current != null) {
            for (int i = 0; i < n; i++) {
                current[i] = current[i] == null ? seen.getOrDefault(debits.get(i).key(), KnownBucket.ABSENT)
                        : current[i];
            }
        }
        return current;
    }

    /** The arguments of one {@code bucket.lua} run, in its write mode, on the buckets at {@code group}. */
    private List<String> runArgs(int[] group, List<List<String>> perBucket) {
        List<String> args = new ArrayList<>(3 + 7 * group.length);
        args.add(Integer.toString(group.length));
        args.add(versionFlag());
        args.add("");
        for (int i : group) {
            args.addAll(perBucket.get(i));
        }
        return args;
    }

    /**
     * The buckets at {@code positions} as an answer that wrote nothing carries them (token, state, horizon, PTTL,
     * stamp and deadline of each, in that order), into {@code current}, remembered, and marked learned now (an
     * absent one too) except where the key goes too soon for the limits in force.
     */
    private void current(List<BucketDebit> debits, int[] positions, List<Object> reply, long now,
            KnownBucket[] current) {
        for (int g = 0; g < positions.length; g++) {
            int i = positions[g];
            int at = 2 + 6 * g;
            String token = (String) reply.get(at);
            current[i] = token.isEmpty() ? KnownBucket.ABSENT : read(debits.get(i).key(), token,
                    (String) reply.get(at + 1), (String) reply.get(at + 2), (String) reply.get(at + 4),
                    (String) reply.get(at + 5));
            long pttl = (Long) reply.get(at + 3);
            if (!Expiry.tooSoon(pttl, neededTtl(debits.get(i), current[i], now))) {
                current[i] = current[i].learned(now);
            }
            remember(debits.get(i).key(), current[i]);
        }
    }

    /**
     * The time to live the key of {@code known} needs under the limits in force at {@code now} (0: none), or -1
     * when it is absent or full (then the horizon written with it rules, which its last write covered).
     */
    private static long neededTtl(BucketDebit debit, KnownBucket known, long now) {
        if (known.state() == null) {
            return -1;
        }
        BucketState state = refilled(debit.shared(), known, now);
        return state.isFull(debit.kept()) ? -1 : Expiry.timeToLive(state, debit.kept(), known.endsAfter(), now);
    }

    private KnownBucket read(BucketKey key, String token, String state, String endsAfter, String stamp,
            String deadline) {
        try {
            Codec.StoredBucket stored = Codec.state(state);
            return new KnownBucket(token, Long.parseLong(endsAfter), stored.state(), stored.slotLimits(),
                    Long.MIN_VALUE, stamp, ServerDecision.deadlineOf(deadline));
        } catch (RuntimeException e) {
            throw corrupt(key, e.toString(), e);
        }
    }

    private CorruptStateException corrupt(BucketKey key, String what, Throwable cause) {
        return new CorruptStateException("the Redis bucket " + keys.bucket(key) + " cannot be read (" + what
                + "); reset the bucket (RateLimiterAdmin.resetBucket) to repair it", cause);
    }

    private void remember(BucketKey key, KnownBucket state) {
        if (seen.size() >= MAX_KNOWN) {
            seen.clear();
        }
        seen.put(key, state);
    }

    private String keysOf(List<BucketDebit> debits) {
        return debits.stream().map(d -> keys.bucket(d.key())).toList().toString();
    }

    /**
     * Takes the turn of this thread on {@code buckets}, waiting at most one request deadline for the threads before
     * it: while Redis does not answer, each of them may spend a deadline, and a call must not wait for all of them.
     */
    private int[] lock(List<BucketKey> buckets) {
        int[] held = buckets.stream().mapToInt(Buckets::stripe).distinct().toArray();
        Arrays.sort(held);
        long until = System.nanoTime() + turnNanos;
        for (int i = 0; i < held.length; i++) {
            if (!turn(stripes[held[i]], until)) {
                unlock(Arrays.copyOf(held, i));
                throw new StoreUnavailableException("this process's other calls on the buckets " + buckets.stream()
                        .map(keys::bucket).toList()
                        + " held them for " + turnNanos / 1_000_000 + " ms: Redis answers slowly or not at all",
                        null);
            }
        }
        return held;
    }

    private static boolean turn(ReentrantLock stripe, long until) {
        try {
            return stripe.tryLock(until - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int stripe(BucketKey key) {
        return Math.floorMod(key.hashCode(), STRIPES);
    }

    private void unlock(int[] held) {
        for (int i = held.length - 1; i >= 0; i--) {
            stripes[held[i]].unlock();
        }
    }
}
