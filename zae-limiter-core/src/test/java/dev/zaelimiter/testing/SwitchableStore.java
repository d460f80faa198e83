package dev.zaelimiter.testing;

import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.ForwardingStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;

import java.util.List;

/**
 * An in-memory store that tests can break: while {@linkplain #down() down} (or {@linkplain #failWith failing} with
 * another exception) every call but {@link #close()} raises, as a DynamoDB store does when the service cannot be
 * reached; {@link #downForAdjustments()} breaks only adjustments and rollbacks.
 */
public final class SwitchableStore extends ForwardingStore {

    private final InMemoryStore delegate = new InMemoryStore();
    private volatile RuntimeException failure;
    private volatile RuntimeException adjustmentFailure;

    /** Every call fails with {@link StoreUnavailableException}. */
    public void down() {
        failWith(new StoreUnavailableException("the store is down (test)", null));
    }

    /** Every call fails with {@code failure}. */
    public void failWith(RuntimeException failure) {
        this.failure = failure;
    }

    /** Only {@link #apply} (adjustments and rollbacks) fails, with {@link StoreUnavailableException}. */
    public void downForAdjustments() {
        adjustmentFailure = new StoreUnavailableException("store down for writes (test)", null);
    }

    /** Every call works again. */
    public void up() {
        failure = null;
        adjustmentFailure = null;
    }

    private void check() {
        RuntimeException f = failure;
        if (f != null) {
            throw f;
        }
    }

    /** The in-memory store, once no failure is set. */
    @Override
    protected LimiterStore delegate() {
        check();
        return delegate;
    }

    @Override
    public void apply(List<BucketDebit> debits, long now) {
        check();
        RuntimeException f = adjustmentFailure;
        if (f != null) {
            throw f;
        }
        delegate.apply(debits, now);
    }

    /** None: every decision goes through {@link #tryAcquire}, where a failure can be set. */
    @Override
    public dev.zaelimiter.store.LocalBuckets localBuckets() {
        return null;
    }

    @Override
    public void close() {
        delegate.close();
    }

    private volatile boolean loseUsageAnswer;

    /** The next usage write lands in the store, but its caller gets a failure, as if the answer had been lost. */
    public void loseNextUsageAnswer() {
        loseUsageAnswer = true;
    }

    @Override
    public dev.zaelimiter.store.UsageStore usage() {
        dev.zaelimiter.store.UsageStore history = delegate.usage();
        return new dev.zaelimiter.store.UsageStore() {
            @Override
            public boolean add(dev.zaelimiter.store.UsageWrite write) {
                check();
                boolean added = history.add(write);
                if (loseUsageAnswer) {
                    loseUsageAnswer = false;
                    throw new StoreUnavailableException("the answer was lost (test)", null);
                }
                return added;
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> entityUsage(String entityId, String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                check();
                return history.entityUsage(entityId, resource, granularity, fromMillis, toMillis);
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> resourceUsage(String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                check();
                return history.resourceUsage(resource, granularity, fromMillis, toMillis);
            }
        };
    }

    @Override
    public dev.zaelimiter.store.AuditStore audit() {
        return delegate.audit();
    }

    @Override
    public String toString() {
        return "SwitchableStore";
    }
}
