package dev.zaelimiter.testing;

import dev.zaelimiter.store.AuditStore;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.LocalBuckets;
import dev.zaelimiter.store.UsageStore;
import dev.zaelimiter.store.UsageWrite;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that passes every call to another, except that it can deliver usage writes twice, as a network that
 * repeats a request (or a client that retries one whose answer was lost) would, and fail those of one entity.
 */
public final class ForwardingStore extends dev.zaelimiter.store.ForwardingStore {

    private final LimiterStore delegate;
    private final AtomicInteger duplicates = new AtomicInteger();
    private final AtomicInteger duplicated = new AtomicInteger();
    private final UsageStore usage;
    private final java.util.Map<String, java.util.function.Supplier<RuntimeException>> usageFailures =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger usageFailuresSeen = new AtomicInteger();
    private final boolean auditable;

    public ForwardingStore(LimiterStore delegate) {
        this(delegate, true);
    }

    /** {@code delegate} with its usage history and audit log hidden, as a store that keeps neither. */
    public static ForwardingStore withoutHistory(LimiterStore delegate) {
        return new ForwardingStore(delegate, false);
    }

    private ForwardingStore(LimiterStore delegate, boolean keepHistory) {
        this.delegate = delegate;
        this.auditable = keepHistory;
        UsageStore kept = keepHistory ? delegate.usage() : null;
        UsageStore history = kept;
        this.usage = history == null ? null : new UsageStore() {
            @Override
            public boolean add(UsageWrite write) {
                java.util.function.Supplier<RuntimeException> failure = usageFailures.get(write.period().key()
                        .entityId());
                if (failure != null) {
                    usageFailuresSeen.incrementAndGet();
                    throw failure.get();
                }
                boolean added = history.add(write);
                if (duplicates.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    if (history.add(write)) {
                        throw new AssertionError("a duplicated usage write was counted twice: " + write);
                    }
                    duplicated.incrementAndGet();
                }
                return added;
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> entityUsage(String entityId, String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                return history.entityUsage(entityId, resource, granularity, fromMillis, toMillis);
            }

            @Override
            public List<dev.zaelimiter.store.UsagePeriod> resourceUsage(String resource,
                    dev.zaelimiter.UsageGranularity granularity, long fromMillis, long toMillis) {
                return history.resourceUsage(resource, granularity, fromMillis, toMillis);
            }
        };
    }

    /** Fails every usage write of {@code entityId} with what {@code failure} makes, until told otherwise. */
    public void failUsageOf(String entityId, java.util.function.Supplier<RuntimeException> failure) {
        usageFailures.put(entityId, failure);
    }

    /** Lets the usage writes of {@code entityId} through again. */
    public void healUsageOf(String entityId) {
        usageFailures.remove(entityId);
    }

    /** How many usage writes {@link #failUsageOf} failed. */
    public int failedUsageWrites() {
        return usageFailuresSeen.get();
    }

    /** Delivers each of the next {@code writes} usage writes twice. */
    public void duplicateUsageWrites(int writes) {
        duplicates.set(writes);
    }

    /** How many usage writes were delivered a second time (and, as required, not counted again). */
    public int duplicatedUsageWrites() {
        return duplicated.get();
    }

    @Override
    public UsageStore usage() {
        return usage;
    }

    @Override
    public AuditStore audit() {
        return auditable ? delegate.audit() : null;
    }

    @Override
    protected LimiterStore delegate() {
        return delegate;
    }

    /** None: every decision goes through {@link #tryAcquire}. */
    @Override
    public LocalBuckets localBuckets() {
        return null;
    }
}
