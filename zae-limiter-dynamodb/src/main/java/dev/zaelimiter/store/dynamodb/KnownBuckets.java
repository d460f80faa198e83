package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.algorithm.ContestedRefusal;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.LimitState;

import java.util.HashMap;
import java.util.List;
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

    /** How long a bucket counts as contended after this process lost a race for it. */
    private static final long CONTENDED_MILLIS = 5_000;

    /**
     * How many other processes a contended bucket's estimate expects to race for the same tokens as each call of
     * this process in flight: while a call is in flight, the others' calls of that moment are too.
     */
    static final int RIVALS = 4;

    private final Map<BucketKey, Known> known = new ConcurrentHashMap<>();

    /**
     * What this process last learned of a bucket at {@code learnedAt}: its state, what calls of this process have
     * taken from it since and not yet heard back about ({@code inFlight}, milli-tokens per limit), and until when it
     * stays away after losing a race. The state is as of the bucket's last write: a write's own, or for a refusal
     * (which writes nothing) the one it read, so that every call counts from that write, as the store does, also one
     * whose clock reads earlier than the read.
     */
    record Known(String stamp, BucketState state, long learnedAt, long pausedUntil, Map<String, Long> inFlight,
            long contendedUntil, long inFlightAt) {

        /**
         * The learned state less what is in flight, refilled to {@code now} under {@code limits}. The calls in flight
         * were made after the state was learned (the latest at {@code inFlightAt}), so they are taken then and the
         * refill since is credited after them: a limit that refills faster than calls arrive is seen full again, as
         * the store will see it, and one written in this very millisecond is seen busy.
         */
        BucketState estimate(List<Limit> limits, long now) {
            if (inFlight.isEmpty()) {
                return state.refilled(limits, now);
            }
            return state.refilled(limits, Math.min(now, inFlightAt)).debited(limits, inFlight, false)
                    .refilled(limits, now);
        }

        /**
         * {@code estimate} less what {@link #RIVALS} other processes are expected to take while this process's calls
         * are in flight: as much again as those calls, per rival. The same as {@code estimate} with nothing in flight.
         */
        BucketState contested(List<Limit> limits, BucketState estimate) {
            BucketState contested = estimate;
            for (int rival = 0; rival < RIVALS && !inFlight.isEmpty(); rival++) {
                contested = contested.debited(limits, inFlight, false);
            }
            return contested;
        }

        /** The learned state less what is in flight, as it was learned (no refill credited since it was learned). */
        BucketState learned(List<Limit> limits, long now) {
            BucketState read = state.refilled(limits, Math.min(now, learnedAt));
            BucketState learned = new BucketState(Math.max(now, read.lastRefillMillis()), read.limits());
            return inFlight.isEmpty() ? learned : learned.debited(limits, inFlight, false);
        }

        private Known withInFlight(Map<String, Long> amounts, long at) {
            return new Known(stamp, state, learnedAt, pausedUntil, Map.copyOf(amounts), contendedUntil, at);
        }

        private Known pausedUntil(long until) {
            return new Known(stamp, state, learnedAt, until, inFlight, contendedUntil, inFlightAt);
        }
    }

    /** What this process knows of the bucket under {@code stamp}'s configuration, or {@code null}. */
    Known get(BucketKey key, String stamp) {
        Known k = known.get(key);
        return k != null && k.stamp().equals(stamp) ? k : null;
    }

    /** What this process knows of the bucket at {@code now}; {@code null} when it knows nothing current. */
    BucketState estimate(BucketDebit debit, String stamp, long now) {
        Known k = get(debit.key(), stamp);
        return k == null ? null : k.estimate(debit.limits(), now);
    }

    /** {@link #localRefusal(BucketDebit, Known, BucketState, long)} from what this process knows, if anything. */
    BucketState localRefusal(BucketDebit debit, String stamp, long now) {
        Known k = get(debit.key(), stamp);
        return k == null ? null : localRefusal(debit, k, k.estimate(debit.limits(), now), now);
    }

    /**
     * The state to refuse with, without asking the store, or {@code null} to ask it. Only hard debits that take no
     * concurrency slot and touch no scheduled limit are refused locally (a scheduled limit's refill depends on when
     * the store last wrote the bucket, which a process cannot see): while paused, when the balances last seen do not
     * cover the call; within {@link #TRUST_MILLIS} of learning them, when they do not cover it even refilled to now.
     * What this process's calls in flight take counts as taken, and while the bucket is contended (this process
     * lost a race for it lately) so does what {@link #RIVALS} other processes take meanwhile
     * ({@link Known#contested}): processes that share a saturated bucket then ask for each refill one at a time
     * rather than all at once. Those rivals only decide the refusal: it reports the plain estimate, its retry-after
     * no later than the end of the trust window ({@link ContestedRefusal}).
     */
    static BucketState localRefusal(BucketDebit debit, Known k, BucketState estimate, long now) {
        if (!refusable(debit)) {
            return null;
        }
        if (now < k.pausedUntil()) {
            BucketState learned = k.learned(debit.limits(), now);
            if (!learned.admits(debit.limits(), debit.amountsMilli())) {
                return learned;
            }
        }
        if (now < k.learnedAt() + TRUST_MILLIS) {
            BucketState expected = now < k.contendedUntil()
                    ? ContestedRefusal.state(debit.limits(), debit.amountsMilli(), estimate,
                            k.contested(debit.limits(), estimate), k.learnedAt() + TRUST_MILLIS)
                    : estimate;
            if (!expected.admits(debit.limits(), debit.amountsMilli())) {
                return expected;
            }
        }
        return null;
    }

    /** Whether {@code debit} may be refused locally at all: hard, taking no slot, touching no scheduled limit. */
    private static boolean refusable(BucketDebit debit) {
        if (debit.countOnly() || debit.takesSlots() || !hardConsumption(debit)) {
            return false;
        }
        for (Limit limit : debit.limits()) {
            if (!limit.schedule().isEmpty() && debit.amountsMilli().getOrDefault(limit.name(), 0L) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code debit} takes from a limit that is not soft. */
    private static boolean hardConsumption(BucketDebit debit) {
        for (Limit limit : debit.limits()) {
            if (!limit.isSoft() && debit.amountsMilli().getOrDefault(limit.name(), 0L) > 0) {
                return true;
            }
        }
        return false;
    }

    /** Counts the debit as in flight, so that this process's other threads do not count on the same tokens. */
    void reserve(BucketDebit debit, String stamp, long now) {
        adjustInFlight(debit, stamp, 1, now);
    }

    /**
     * Whether the bucket, {@code written} as the store refused the reserved {@code debit}, shows more consumed than
     * this process's own calls account for (what it last learned, and its other calls still in flight): the race was
     * then lost to another process, not to its own threads.
     */
    boolean lostToAnother(BucketDebit debit, String stamp, BucketState written) {
        Known k = get(debit.key(), stamp);
        if (k == null) {
            return true;
        }
        for (Map.Entry<String, Long> asked : debit.amountsMilli().entrySet()) {
            LimitState learned = k.state().limits().get(asked.getKey());
            LimitState seen = written.limits().get(asked.getKey());
            if (learned == null || seen == null) {
                return true;
            }
            long ownInFlight = k.inFlight().getOrDefault(asked.getKey(), 0L) - asked.getValue();
            if (seen.consumedMilli() > BucketMath.saturatedAdd(learned.consumedMilli(), Math.max(0, ownInFlight))) {
                return true;
            }
        }
        return false;
    }

    /** The debit's request has been answered (or failed): it is no longer in flight. */
    void release(BucketDebit debit, String stamp) {
        adjustInFlight(debit, stamp, -1, Long.MIN_VALUE);
    }

    private void adjustInFlight(BucketDebit debit, String stamp, int sign, long now) {
        known.computeIfPresent(debit.key(), (key, k) -> {
            if (!k.stamp().equals(stamp)) {
                return k;
            }
            Map<String, Long> inFlight = new HashMap<>(k.inFlight());
            debit.amountsMilli().forEach((name, amount) -> {
                long next = BucketMath.saturatedAdd(inFlight.getOrDefault(name, 0L), sign * amount);
                if (next > 0) {
                    inFlight.put(name, next);
                } else {
                    inFlight.remove(name);
                }
            });
            return k.withInFlight(inFlight, Math.max(k.inFlightAt(), now));
        });
    }

    /**
     * Whether this call may ask the store about a bucket whose last tokens this process lost and whose pause has
     * ended: the first call to ask takes the probe (the pause is renewed for the others) and the others are refused
     * locally until its answer, so that a contended bucket costs one request per pause, not one per thread.
     */
    boolean claimProbe(BucketDebit debit, Known k, long now) {
        if (k.pausedUntil() == 0 || now < k.pausedUntil()) {
            return true;
        }
        boolean[] claimed = {false};
        known.computeIfPresent(debit.key(), (key, current) -> {
            if (current == k) {
                claimed[0] = true;
                return k.pausedUntil(now + pause(debit, now));
            }
            return current;
        });
        return claimed[0];
    }

    /** Remembers what the store answered about a bucket; what is still in flight stays counted. */
    void learn(BucketKey key, String stamp, BucketState state, long now, long pausedUntil) {
        learn(key, stamp, state, now, pausedUntil, 0);
    }

    private void learn(BucketKey key, String stamp, BucketState state, long now, long pausedUntil,
            long contendedUntil) {
        if (known.size() >= MAX_KNOWN) {
            known.clear();
        }
        known.compute(key, (k, old) -> {
            boolean same = old != null && old.stamp().equals(stamp);
            return new Known(stamp, state, now, pausedUntil, same ? old.inFlight() : Map.of(),
                    Math.max(contendedUntil, same ? old.contendedUntil() : 0),
                    same ? old.inFlightAt() : Long.MIN_VALUE);
        });
    }

    /**
     * Remembers the state an admitted {@code debit} left. While the bucket is contended (this process lost a race
     * for it lately), a state that could not admit the same call again starts a {@link #pause}: processes sharing a
     * saturated bucket then come back for its tokens in turns, a few at a time, instead of all chasing each one.
     */
    void learnAdmitted(BucketDebit debit, String stamp, BucketState state, long now) {
        Known old = get(debit.key(), stamp);
        boolean contended = old != null && now < old.contendedUntil();
        boolean drained = !state.admits(debit.limits(), debit.amountsMilli());
        learn(debit.key(), stamp, state, now, contended && drained ? now + pause(debit, now) : 0);
    }

    /**
     * Remembers a bucket the store found short for {@code debit} when read at {@code now}, its state as of its last
     * write ({@link StoredBucket#written}); when this process expected it to pass, it lost a race for the last
     * tokens: it stays away for a {@link #pause} and counts the bucket as contended for a while.
     */
    void learnRefusal(BucketDebit debit, String stamp, BucketState written, long now, boolean expected) {
        learn(debit.key(), stamp, written, now, expected ? now + pause(debit, now) : 0,
                expected ? now + CONTENDED_MILLIS : 0);
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
            Limits.Parameters p = Limits.parametersAt(limit, now);
            if (!limit.isSoft() && p.drips()) {
                double fill = (double) p.capacityMilli() * p.refillPeriodMillis() / p.refillAmountMilli();
                pause = Math.min(pause, (long) (fill / 4));
            }
        }
        return pause <= 1 ? pause : pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
    }
}
