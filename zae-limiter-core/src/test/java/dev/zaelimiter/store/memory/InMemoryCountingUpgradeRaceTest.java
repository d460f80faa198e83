package dev.zaelimiter.store.memory;

import dev.zaelimiter.Limit;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.InPlaceBuckets;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bucket written by the general path is replaced by a counting copy on the first in-place decision that counts
 * usage. A reset, an entity deletion or a read that waited for the old bucket meanwhile acts on the copy: the old one
 * is retired but not gone. Deterministic: the test holds the old bucket's monitor until the other thread waits for it.
 */
class InMemoryCountingUpgradeRaceTest {

    static final InPlaceBuckets.Outcome<Object> IGNORE = new InPlaceBuckets.Outcome<>() {
        public void admitted(Object call, long b, long at) { }
        public void refused(Object call, BucketState s) { }
    };

    private static Object cellOf(InMemoryStore store, BucketKey key) throws Exception {
        Field f = InMemoryStore.class.getDeclaredField("cells");
        f.setAccessible(true);
        return ((CellTable) f.get(store)).cell(key);
    }

    private void race(boolean entity) throws Exception {
        InMemoryStore store = new InMemoryStore();
        List<Limit> limits = List.of(Limit.perHour("rph", 10));
        BucketKey key = new BucketKey("e", "r");
        long now = 1_000_000_000L;
        // written by the general path (or by a limiter without usage history): a plain Cell
        store.tryAcquire(List.of(new BucketDebit(key, limits, Map.of("rph", 5000L), false, false, null, limits)), now);
        Object cell = cellOf(store, key);
        Thread deleter;
        synchronized (cell) {
            deleter = new Thread(() -> {
                if (entity) store.deleteEntity("e"); else store.deleteBucket(key);
            });
            deleter.start();
            while (deleter.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
            // an in-place decision of a limiter with usage history upgrades the cell meanwhile
            store.takeOne(key, new InPlaceBuckets.Take(limits, 1000, false, true), now, IGNORE, null);
        }
        deleter.join();
        BucketState after = store.peek(List.of(new BucketDebit(key, limits, Map.of(), false, false, null, limits)), now)
                .get(0).state();
        assertThat(after.balanceMilli("rph")).as("reset must leave a full bucket").isEqualTo(10_000);
    }

    @Test
    void aResetWaitingForTheOldBucketResetsItsCountingCopy() throws Exception {
        race(false);
    }

    @Test
    void anEntityDeletionWaitingForTheOldBucketDeletesItsCountingCopy() throws Exception {
        race(true);
    }

    @Test
    void aReadWaitingForTheOldBucketSeesItsCountingCopy() throws Exception {
        InMemoryStore store = new InMemoryStore();
        List<Limit> limits = List.of(Limit.perHour("rph", 10));
        BucketKey key = new BucketKey("e", "r");
        long now = 1_000_000_000L;
        BucketDebit debit = new BucketDebit(key, limits, Map.of("rph", 5000L), false, false, null, limits);
        store.tryAcquire(List.of(debit), now);
        Object cell = cellOf(store, key);
        long[] seen = new long[1];
        Thread peeker;
        synchronized (cell) {
            peeker = new Thread(() -> seen[0] = store.peek(List.of(debit), now).get(0).state().balanceMilli("rph"));
            peeker.start();
            while (peeker.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
            store.takeOne(key, new InPlaceBuckets.Take(limits, 1000, false, true), now, IGNORE, null);
        }
        peeker.join();
        assertThat(seen[0]).as("peek must see the bucket as written (4 of 10 left)").isEqualTo(4000);
    }
}
