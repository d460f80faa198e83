package dev.zaelimiter.store.redis;

import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.BucketKey;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The turns this process's threads take on buckets: one lock per stripe of bucket keys, taken in stripe order, so
 * that only other processes' writes make a decision go round again.
 */
final class Turns {

    private static final int STRIPES = 256;

    private final Keys keys;
    private final long turnNanos;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    Turns(Keys keys, long turnNanos) {
        this.keys = keys;
        this.turnNanos = turnNanos;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /**
     * Takes the turn of this thread on {@code buckets}, waiting at most one request deadline for the threads before
     * it: while Redis does not answer, each of them may spend a deadline, and a call must not wait for all of them.
     */
    int[] lock(List<BucketKey> buckets) {
        int[] held = stripes(buckets);
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

    void unlock(int[] held) {
        for (int i = held.length - 1; i >= 0; i--) {
            stripes[held[i]].unlock();
        }
    }

    private static boolean turn(ReentrantLock stripe, long until) {
        try {
            return stripe.tryLock(until - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The distinct stripes of {@code buckets}, in order. */
    private static int[] stripes(List<BucketKey> buckets) {
        int[] all = new int[buckets.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = stripe(buckets.get(i));
        }
        Arrays.sort(all);
        int distinct = 0;
        for (int i = 0; i < all.length; i++) {
            if (i == 0 || all[i] != all[i - 1]) {
                all[distinct++] = all[i];
            }
        }
        return distinct == all.length ? all : Arrays.copyOf(all, distinct);
    }

    private static int stripe(BucketKey key) {
        return Math.floorMod(key.hashCode(), STRIPES);
    }
}
