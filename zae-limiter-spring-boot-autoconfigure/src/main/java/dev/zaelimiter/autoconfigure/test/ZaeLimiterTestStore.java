package dev.zaelimiter.autoconfigure.test;

import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ForwardingStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.memory.InMemoryStore;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory store of {@link AutoConfigureZaeLimiterTest}: an {@link InMemoryStore} that remembers which buckets
 * and pauses were written, so that {@link #reset()} can put every bucket back to full and end every pause while the
 * declarations, entities and limits stay.
 */
public final class ZaeLimiterTestStore extends ForwardingStore {

    private final InMemoryStore delegate = new InMemoryStore();
    private final Set<BucketKey> buckets = ConcurrentHashMap.newKeySet();
    private final Set<ConfigScope> pauses = ConcurrentHashMap.newKeySet();

    /** Puts every bucket used so far back to full and ends every pause; configuration stays. */
    public void reset() {
        for (BucketKey key : buckets) {
            delegate.deleteBucket(key);
        }
        buckets.clear();
        for (ConfigScope scope : pauses) {
            delegate.putPause(scope, null);
        }
        pauses.clear();
    }

    private void remember(List<BucketDebit> debits) {
        for (BucketDebit debit : debits) {
            buckets.add(debit.key());
        }
    }

    /** The in-memory store underneath. */
    @Override
    protected LimiterStore delegate() {
        return delegate;
    }

    @Override
    public void putPause(ConfigScope scope, Long until) {
        if (until != null) {
            pauses.add(scope);
        }
        delegate.putPause(scope, until);
    }

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
        remember(debits);
        return delegate.tryAcquire(debits, now);
    }

    @Override
    public AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
        remember(debits);
        return delegate.tryAcquire(debits, now, horizonMillis);
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        remember(debits);
        delegate.apply(debits, now);
    }

    @Override
    public boolean renew(List<BucketDebit> debits, long now) {
        remember(debits);
        return delegate.renew(debits, now);
    }

    /**
     * The in-place decisions of the in-memory store underneath, remembering the buckets they write, so that tests
     * decide calls the way the application does outside tests.
     */
    @Override
    public InPlaceBuckets inPlaceBuckets() {
        return local;
    }

    private final InPlaceBuckets local = new InPlaceBuckets() {
        @Override
        public <C> boolean takeOne(BucketKey key, Take take, long now, Outcome<C> outcome, C call) {
            buckets.add(key);
            return delegate.takeOne(key, take, now, outcome, call);
        }

        @Override
        public long sharedConfigVersion(String entityId) {
            return delegate.sharedConfigVersion(entityId);
        }

        @Override
        public void drainUsage(UsageSink sink) {
            delegate.drainUsage(sink);
        }
    };
}
