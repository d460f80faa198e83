package dev.zaelimiter.store.redis;

import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketState;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which buckets one decision has written so far, and on what states: only where its buckets lie in several slots of
 * a cluster, whose runs are written apart, can some be written while the rest go round again (or are refused).
 */
final class SlotsWritten {

    private final boolean[] done;
    private final BucketState[] basis;

    SlotsWritten(int buckets) {
        done = new boolean[buckets];
        basis = new BucketState[buckets];
    }

    /** {@code refilled}, but the states the written buckets were decided on where they were: for the next round. */
    BucketState[] onBasis(BucketState[] refilled) {
        for (int i = 0; i < refilled.length; i++) {
            refilled[i] = done[i] ? basis[i] : refilled[i];
        }
        return refilled;
    }

    /** {@code writes} without those of the buckets already written. */
    BucketState[] unwritten(BucketState[] writes) {
        BucketState[] unwritten = writes.clone();
        for (int i = 0; i < unwritten.length; i++) {
            unwritten[i] = done[i] ? null : unwritten[i];
        }
        return unwritten;
    }

    /** Marks the buckets {@code written} as written, decided on {@code refilled}. */
    void mark(boolean[] written, BucketState[] refilled) {
        for (int i = 0; i < written.length; i++) {
            if (written[i]) {
                done[i] = true;
                basis[i] = refilled[i];
            }
        }
    }

    /**
     * What gives back what the decision took from the buckets it wrote, one debit per bucket: as a lease's rollback
     * does, and as the DynamoDB store compensates a cascade (tokens and slots back, capped at the capacity).
     */
    List<BucketDebit> givingBack(List<BucketDebit> debits) {
        List<BucketDebit> back = new ArrayList<>();
        for (int i = 0; i < done.length; i++) {
            if (done[i]) {
                BucketDebit d = debits.get(i).shared();
                Map<String, Long> amounts = new HashMap<>();
                d.amountsMilli().forEach((limit, amount) -> amounts.put(limit, -amount));
                back.add(d.withAmounts(amounts));
            }
        }
        return back;
    }
}
