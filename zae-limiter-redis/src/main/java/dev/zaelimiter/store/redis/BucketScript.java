package dev.zaelimiter.store.redis;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.store.BucketState;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;
import java.util.stream.IntStream;

/**
 * The runs of {@code bucket.lua}: the arguments of its write mode (a conditional write per bucket, one run per slot of
 * a cluster) and of its decide mode ({@link ServerDecision}), and the reading of their answers into the buckets as
 * stored, which {@link Seen} remembers, and the configuration version, which goes to {@code configVersion}.
 */
final class BucketScript {

    private static final RedisCalls.Script SCRIPT = RedisCalls.Script.load("bucket");

    /**
     * What a run in decide mode answered: that it made the caller's own writes ({@link #AS_SENT}), the states it
     * wrote, or (nothing written) the buckets as they are and whether it refused the call on them (else it declined
     * to decide).
     */
    record ServerAnswer(BucketState[] written, KnownBucket[] current, boolean refused, boolean asSent) {

        /** The caller's own writes were made: every bucket was as it knew it. */
        static final ServerAnswer AS_SENT = new ServerAnswer(null, null, false, true);
    }

    private final RedisCalls redis;
    private final Keys keys;
    private final LongConsumer configVersion;
    private final ServerDecision server;
    private final Seen seen;

    BucketScript(RedisCalls redis, Keys keys, LongConsumer configVersion, ServerDecision server, Seen seen) {
        this.redis = redis;
        this.keys = keys;
        this.configVersion = configVersion;
        this.server = server;
        this.seen = seen;
    }

    /** Whether every bucket of {@code debits} lies in one slot (always, off a cluster). */
    boolean oneSlot(List<BucketDebit> debits) {
        return debits.size() == 1 || !redis.cluster()
                || redis.bySlot(debits.stream().map(d -> keys.bucket(d.key())).toList()).size() == 1;
    }

    /**
     * Sends one decision: {@code writes} (null, or null entries: nothing written) conditioned on {@code known}; a
     * bucket not written has its key's expiry extended where it goes too soon for the limits in force. Returns
     * {@code null} when every token matched (and the writes were made), else the buckets as the server holds them
     * (also remembered), of which those whose key goes too soon are marked to be asked again. Buckets in several
     * slots of a cluster get one run per slot, all in flight together: each is written or not on its own, and
     * {@code written} says which were.
     */
    KnownBucket[] send(List<BucketDebit> debits, KnownBucket[] known, BucketState[] writes, long now,
            boolean[] written) {
        int n = debits.size();
        List<String> k = new ArrayList<>(n);
        List<List<String>> perBucket = new ArrayList<>(n);
        String[] tokens = new String[n];
        KnownBucket[] asWritten = new KnownBucket[n];
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
            asWritten[i] = writeArguments(args, d, tokens[i], write, now);
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
                    if (tokens[i] == null) {
                        seen.remember(debits.get(i).key(), known[i].learned(now));
                    } else {
                        seen.remember(debits.get(i).key(), asWritten[i]);
                    }
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
                current[i] = current[i] == null ? seen.known(debits.get(i).key()) : current[i];
            }
        }
        return current;
    }

    /**
     * One run of the script in decide mode ({@link ServerDecision}) for {@code debits} at {@code now}. With
     * {@code writes} (this process's own decision on {@code known}, every bucket written), the script makes those
     * writes when every bucket is still as {@code known} (the write mode's check and write), and decides from the
     * buckets as stored otherwise: one run either way, and no parsing or arithmetic on the server in the common case
     * of a bucket this process wrote or read last.
     */
    ServerAnswer decide(List<BucketDebit> debits, String mode, long now, KnownBucket[] known,
            BucketState[] writes) {
        int n = debits.size();
        List<String> k = new ArrayList<>(n + 1);
        List<String> args = new ArrayList<>(5 + n * 7);
        args.add(Integer.toString(n));
        args.add(versionFlag());
        args.add(Long.toString(now));
        String[] tokens = new String[n];
        for (int i = 0; i < n; i++) {
            k.add(keys.bucket(debits.get(i).key()));
            tokens[i] = newToken();
        }
        args.add(writes == null ? "" : "1");
        KnownBucket[] asWritten = new KnownBucket[n];
        if (writes != null) {
            for (int i = 0; i < n; i++) {
                args.add(known[i].token());
                asWritten[i] = writeArguments(args, debits.get(i), tokens[i], writes[i], now);
            }
        }
        List<String> decideArgs = new ArrayList<>(n * 16);
        for (int i = 0; i < n; i++) {
            server.arguments(decideArgs, debits.get(i), tokens[i], mode, now);
        }
        args.add(String.join(" ", decideArgs));          // one argument: the script splits it only if it decides
        List<Object> reply = redis.runVersioned(SCRIPT, k, args, keys.configVersion());
        long code = (Long) reply.get(0);
        if (code == 2L) {
            version(reply);
            for (int i = 0; i < n; i++) {
                seen.remember(debits.get(i).key(), asWritten[i]);
            }
            return ServerAnswer.AS_SENT;
        }
        if (code == -2L) {
            BucketKey key = debits.get(((Long) reply.get(2)).intValue() - 1).key();
            throw corrupt(key, String.valueOf(reply.get(3)), null);
        }
        version(reply);
        if (code != 1L) {
            KnownBucket[] current = new KnownBucket[debits.size()];
            current(debits, IntStream.range(0, debits.size()).toArray(), reply, now, current);
            return new ServerAnswer(null, current, code == 0L, false);
        }
        BucketState[] written = new BucketState[debits.size()];
        for (int i = 0; i < written.length; i++) {
            BucketDebit d = debits.get(i);
            KnownBucket stored = read(d.key(), tokens[i], (String) reply.get(2 + i), "0", "", "");
            long at = stored.state().lastRefillMillis();                        // later than now: the last write's
            written[i] = stored.state();
            seen.remember(d.key(), new KnownBucket(tokens[i], BucketLife.endsAfter(d.limits(), at), written[i],
                    Set.of(), now, server.stamp(d.limits()), ServerDecision.deadline(d.limits(), at)));
        }
        return new ServerAnswer(written, null, false, false);
    }

    /**
     * The write mode's six values after the expected token for {@code write} of {@code debit}'s bucket with
     * {@code token}: the token, state, horizon, time to live, stamp and deadline; returns the bucket as written.
     */
    private KnownBucket writeArguments(List<String> args, BucketDebit debit, String token, BucketState write,
            long now) {
        List<Limit> kept = debit.kept();
        long at = write.lastRefillMillis();
        KnownBucket written = new KnownBucket(token, BucketLife.endsAfter(kept, at), write, Codec.slotLimits(kept),
                now, server.stamp(kept), ServerDecision.deadline(kept, at));
        args.add(token);
        args.add(Codec.state(write, written.slotLimits()));
        args.add(Long.toString(written.endsAfter()));
        args.add(Long.toString(Expiry.timeToLive(write, kept, written.endsAfter(), now)));
        args.add(written.stamp());
        args.add(ServerDecision.text(written.deadline()));
        return written;
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
     * {@code bucket.lua}'s second argument: on one Redis it reads the configuration version too; on a cluster, where
     * the version lies in another slot, a {@code GET} in flight with it does.
     */
    private String versionFlag() {
        return redis.cluster() ? "" : "1";
    }

    private static String newToken() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() | 1L);
    }

    private void version(List<Object> reply) {
        String version = String.valueOf(reply.get(1));
        if (!version.isEmpty()) {
            configVersion.accept(Long.parseLong(version));
        }
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
            seen.remember(debits.get(i).key(), current[i]);
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
        BucketState state = known.refilled(debit.shared(), now);
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
}
