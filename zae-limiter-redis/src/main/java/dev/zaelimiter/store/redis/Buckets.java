package dev.zaelimiter.store.redis;

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
            KnownBucket[] current = send(debits, known, null, now);
            if (current != null && askAgain(current, now)) {
                KnownBucket[] again = send(debits, current, null, now);     // to extend a key that goes too soon
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
        seen.keySet().removeIf(key -> key.entityId().equals(entityId));
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
            boolean byScript = onServer != null && ServerDecision.applies(debits, now)
                    && !server.outdated(debits, known, now);
            while (true) {
                Outcome<T> outcome = decision.decide(refilled(debits, known, now));
                Outcome<T> local = writesNothing(outcome) || !contention.any(debits, now) ? outcome
                        : decision.decide(Contention.contested(debits, known, now));
                if (refusedOnRecentStates(local, known, now) && refusableLocally(debits)) {
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
                    known = answer.current();
                    Outcome<T> again = decision.decide(refilled(debits, known, now));
                    if (answer.refused() ? writesNothing(again) : refusedOnRecentStates(again, known, now)) {
                        return again.result();
                    }
                    continue;
                }
                KnownBucket[] current = send(debits, known, outcome.writes(), now);
                if (current == null) {
                    return outcome.result();
                }
                if (!writesNothing(outcome)) {
                    contention.lost(debits, now);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new StoreUnavailableException("other processes kept writing the buckets " + keysOf(debits)
                            + " for " + retryNanos / 1_000_000 + " ms: no decision could be written", null);
                }
                known = current;
            }
        } finally {
            unlock(held);
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
        args.add("1");
        args.add(Long.toString(now));
        String[] tokens = new String[debits.size()];
        for (int i = 0; i < debits.size(); i++) {
            k.add(keys.bucket(debits.get(i).key()));
            tokens[i] = newToken();
            server.arguments(args, debits.get(i), tokens[i], mode, now);
        }
        k.add(keys.configVersion());
        List<Object> reply = redis.run(SCRIPT, k, args);
        version(reply);
        if ((Long) reply.get(0) != 1L) {
            return new ServerAnswer(null, current(debits, reply, now), (Long) reply.get(0) == 0L);
        }
        BucketState[] written = new BucketState[debits.size()];
        for (int i = 0; i < written.length; i++) {
            BucketDebit d = debits.get(i);
            long endsAfter = BucketLife.endsAfter(d.limits(), now);
            KnownBucket stored = read(d.key(), tokens[i], (String) reply.get(2 + i), Long.toString(endsAfter),
                    server.stamp(d.limits()), ServerDecision.text(ServerDecision.deadline(d.limits(), now)));
            written[i] = stored.state();
            remember(d.key(), stored.learned(now));
        }
        return new ServerAnswer(written, null, false);
    }

    private void version(List<Object> reply) {
        String version = String.valueOf(reply.get(1));
        if (!version.isEmpty()) {
            configVersion.accept(Long.parseLong(version));
        }
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
     * (also remembered), of which those whose key goes too soon are marked to be asked again.
     */
    private KnownBucket[] send(List<BucketDebit> debits, KnownBucket[] known, BucketState[] writes, long now) {
        List<String> k = new ArrayList<>(debits.size() + 1);
        List<String> args = new ArrayList<>(3 + 7 * debits.size());
        args.add(Integer.toString(debits.size()));
        args.add("1");
        args.add("");
        String[] tokens = new String[debits.size()];
        for (int i = 0; i < debits.size(); i++) {
            BucketDebit d = debits.get(i);
            k.add(keys.bucket(d.key()));
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
        k.add(keys.configVersion());
        List<Object> reply = redis.run(SCRIPT, k, args);
        version(reply);
        if (((Long) reply.get(0)) == 1L) {
            for (int i = 0; i < debits.size(); i++) {
                List<Limit> kept = debits.get(i).kept();
                long at = tokens[i] == null ? 0 : writes[i].lastRefillMillis();
                remember(debits.get(i).key(), tokens[i] == null ? known[i].learned(now) : new KnownBucket(tokens[i],
                        BucketLife.endsAfter(kept, at), writes[i], Codec.slotLimits(kept), now, server.stamp(kept),
                        ServerDecision.deadline(kept, at)));
            }
            return null;
        }
        return current(debits, reply, now);
    }

    /**
     * The buckets as an answer that wrote nothing carries them (token, state, horizon, PTTL, stamp and deadline of
     * each), remembered, and marked learned now (an absent one too) except where the key goes too soon for the
     * limits in force.
     */
    private KnownBucket[] current(List<BucketDebit> debits, List<Object> reply, long now) {
        KnownBucket[] current = new KnownBucket[debits.size()];
        for (int i = 0; i < current.length; i++) {
            int at = 2 + 6 * i;
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
        return current;
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
            throw new dev.zaelimiter.CorruptStateException("the Redis bucket " + keys.bucket(key) + " cannot be"
                    + " read (" + e + "); reset the bucket (RateLimiterAdmin.resetBucket) to repair it", e);
        }
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
