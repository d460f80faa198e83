package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.store.InPlaceBuckets;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Map;

/**
 * The lease of a call that the store decided in place (one bucket, one plain limit): it keeps what the decision saw,
 * answers the common questions from it, and becomes a {@link DefaultLease} only when a correction needs one. As the
 * decision's {@link InPlaceBuckets.Outcome}, it also keeps what a refusal needs to explain itself.
 */
final class OneLimitLease implements Lease, InPlaceBuckets.Outcome, Refusal.Explanation,
        RateLimitExceededException.Explanation {

    private final LeaseWrites writes;
    private final RequestPlanner.PlanBasis target;
    private final BucketKey key;
    private final RequestPlanner.Amounts amounts;
    /** Admitted: the limit's balance after the debit. */
    private long balanceMilli;
    /** The decision's instant; once admitted, the bucket's (which a clock stepping back leaves later). */
    private long at;
    /** Refused: the bucket as stored before the call ({@code null}: never written). */
    private BucketState stored;
    private DefaultLease full;
    private boolean closed;

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(OneLimitLease.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The lease of a call decided at {@code now}, until the store says what it decided. */
    OneLimitLease(LeaseWrites writes, RequestPlanner.PlanBasis target, BucketKey key, RequestPlanner.Amounts amounts,
            long now) {
        this.writes = writes;
        this.target = target;
        this.key = key;
        this.amounts = amounts;
        this.at = now;
    }

    @Override
    public void admitted(long balanceMilli, long at) {
        this.balanceMilli = balanceMilli;
        this.at = at;
    }

    @Override
    public void refused(BucketState stored) {
        this.stored = stored;
    }

    /** Whether the limit is soft and in debt after the debit. */
    private boolean inDebt() {
        return target.limit().isSoft() && balanceMilli < 0;
    }

    /** The refusal of this call, as {@link RateLimiter#acquire} raises it; its statuses are built when read. */
    @Override
    public RateLimitExceededException explain() {
        return new RateLimitExceededException(this, false);
    }

    /** The statuses of this call's refusal: the stored bucket refilled again to the decision's instant. */
    @Override
    public List<LimitStatus> refusalStatuses() {
        long now = at;
        List<Limit> limits = target.bucketLimits();
        BucketState refilled = stored == null ? BucketState.fresh(limits, now) : stored.refilled(limits, now);
        return RequestPlanner.statuses(RequestPlanner.lonePlan(target, key, amounts),
                List.of(new BucketSnapshot(key, refilled)), false);
    }

    /** This lease as a full one, which corrections go through. */
    private DefaultLease full() {
        if (full == null) {
            BucketState admittedAs = new BucketState(at, Map.of(target.limit().name(),
                    new LimitState(balanceMilli, amounts.firstMilli())));
            full = new DefaultLease(writes, RequestPlanner.lonePlan(target, key, amounts),
                    List.of(new BucketSnapshot(key, admittedAs)));
        }
        return full;
    }

    @Override
    public synchronized void adjust(String limitName, long amount) {
        if (closed) {
            throw new LeaseClosedException("adjust " + limitName);
        }
        full().adjust(limitName, amount);
    }

    @Override
    public synchronized void rollback() {
        if (closed) {
            throw new LeaseClosedException("roll back");
        }
        full().rollback();
        closed = true;
    }

    /**
     * Closes without taking this lease's monitor while no correction made it a full lease: there is nothing to give
     * back (it holds no slot), only the flag to set, which a correction reads under the monitor.
     */
    @Override
    public void close() {
        if (full == null) {
            CLOSED.setRelease(this, true);
            return;
        }
        synchronized (this) {
            if (!closed) {
                closed = true;
                full.close();
            }
        }
    }

    @Override
    public synchronized boolean extend() {
        if (closed) {
            throw new LeaseClosedException("extend");
        }
        return true;
    }

    @Override
    public List<String> overdrawn() {
        return inDebt() ? List.of(target.limit().name()) : List.of();
    }

    @Override
    public boolean bypassed() {
        return target.bypass();
    }

    @Override
    public Unavailable onUnavailable() {
        return writes.policy().policy();
    }

    @Override
    public boolean degraded() {
        return false;
    }

    @Override
    public List<LimitStatus> statuses() {
        return List.of(RequestPlanner.status(key, target.limit(), amounts.firstMilli(), balanceMilli, at, false, 0));
    }

    @Override
    public String toString() {
        return "Lease[" + key.entityId() + "/" + key.resource() + "/" + target.limit().name() + ", available "
                + Math.floorDiv(balanceMilli, Limits.MILLI) + "]";
    }
}
