package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.algorithm.BucketState;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What this process last learned of each bucket it wrote, used to guess the right update and to refuse without a
 * request: a bucket that cannot cover a call even refilled since it was seen is refused locally (other processes
 * can only have taken tokens since, so this errs towards refusing), and a bucket whose last tokens this process lost
 * to another is left alone for a short pause.
 */
final class KnownBuckets {

    /** How long a refusal learned from the store is trusted without asking it again. */
    private static final long TRUST_MILLIS = 1000;

    /** The longest pause after losing a race for a bucket's last tokens. */
    private static final long MAX_PAUSE_MILLIS = 250;

    private static final int MAX_KNOWN = 100_000;

    private final Map<BucketKey, Known> known = new ConcurrentHashMap<>();

    /**
     * What this process last learned of a bucket: its state at {@code learnedAt} (less what calls of this process
     * have taken since, while they are in flight), and until when it stays away after losing a race.
     */
    record Known(String stamp, BucketState state, long learnedAt, long pausedUntil) {
    }

    /** What this process knows of the bucket under {@code stamp}'s configuration, or {@code null}. */
    Known get(BucketKey key, String stamp) {
        Known k = known.get(key);
        return k != null && k.stamp().equals(stamp) ? k : null;
    }

    /** What this process knows of the bucket, refilled to {@code now}; {@code null} when it knows nothing current. */
    BucketState estimate(BucketDebit debit, String stamp, long now) {
        Known k = get(debit.key(), stamp);
        return k == null ? null : k.state().refilled(debit.limits(), now);
    }

    /** {@link #localRefusal(BucketDebit, Known, BucketState, long)} from what this process knows, if anything. */
    BucketState localRefusal(BucketDebit debit, String stamp, long now) {
        Known k = get(debit.key(), stamp);
        return k == null ? null : localRefusal(debit, k, k.state().refilled(debit.limits(), now), now);
    }

    /**
     * The state to refuse with, without asking the store, or {@code null} to ask it. Only hard debits that take no
     * concurrency slot and touch no scheduled limit are refused locally (a scheduled limit's refill depends on when
     * the store last wrote the bucket, which a process cannot see): while paused, when the balances last seen do not
     * cover the call; within {@link #TRUST_MILLIS} of learning them, when they do not cover it even refilled to now.
     */
    static BucketState localRefusal(BucketDebit debit, Known k, BucketState estimate, long now) {
        if (debit.countOnly() || debit.takesSlots() || !BucketItems.hardConsumption(debit)) {
            return null;
        }
        for (Limit limit : debit.limits()) {
            if (!limit.schedule().isEmpty() && debit.amountsMilli().getOrDefault(limit.name(), 0L) != 0) {
                return null;
            }
        }
        if (now < k.pausedUntil() && !k.state().admits(debit.limits(), debit.amountsMilli())) {
            return new BucketState(Math.max(now, k.state().lastRefillMillis()), k.state().limits());
        }
        if (now < k.learnedAt() + TRUST_MILLIS && !estimate.admits(debit.limits(), debit.amountsMilli())) {
            return estimate;
        }
        return null;
    }

    /** Takes the debit from what this process knows, so that its other threads do not count on the same tokens. */
    void reserve(BucketDebit debit, String stamp, long now) {
        known.computeIfPresent(debit.key(), (key, k) -> k.stamp().equals(stamp)
                ? new Known(stamp, k.state().refilled(debit.limits(), now)
                        .debited(debit.limits(), debit.amountsMilli(), false), k.learnedAt(), k.pausedUntil())
                : k);
    }

    void learn(BucketKey key, String stamp, BucketState state, long now, long pausedUntil) {
        if (known.size() >= MAX_KNOWN) {
            known.clear();
        }
        known.put(key, new Known(stamp, state, now, pausedUntil));
    }

    /**
     * Remembers a bucket the store found short for {@code debit}; when this process expected it to pass, it lost a
     * race for the last tokens and stays away for a {@link #pause}.
     */
    void learnRefusal(BucketDebit debit, String stamp, BucketState state, long now, boolean expected) {
        learn(debit.key(), stamp, state, now, expected ? now + pause(debit, now) : 0);
    }

    /** Forgets what this process knows of a bucket (it was deleted, or written by a path that returns nothing). */
    void forget(BucketKey key) {
        known.remove(key);
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
}
