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
 * answers the common questions from it, and becomes a {@link DefaultLease} only when a correction needs one. It is
 * also the record of its call that the store's decision fills in ({@link #OUTCOME}) and that explains a refusal
 * ({@link #REFUSAL}): two receivers that serve every lease, so that neither role is the lease's own and neither
 * allocates.
 */
final class OneLimitLease implements Lease {

    /** Fills in a lease from what the store decided about its call. */
    static final InPlaceBuckets.Outcome<OneLimitLease> OUTCOME = new InPlaceBuckets.Outcome<>() {
        @Override
        public void admitted(OneLimitLease call, long balanceMilli, long at) {
            call.balanceMilli = balanceMilli;
            call.at = at;
        }

        @Override
        public void refused(OneLimitLease call, BucketState stored) {
            call.stored = stored;
        }
    };

    /** The statuses of a refused call, from its lease. */
    static final Refusal.Explanation<OneLimitLease> REFUSAL = OneLimitLease::refusalStatuses;

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

    /** Whether the limit is soft and in debt after the debit. */
    private boolean inDebt() {
        return target.limit().isSoft() && balanceMilli < 0;
    }

    /** The statuses of this call's refusal: the stored bucket refilled again to the decision's instant. */
    private List<LimitStatus> refusalStatuses() {
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
        DefaultLease.requireOpen(closed, "adjust", limitName);
        full().adjust(limitName, amount);
    }

    @Override
    public synchronized void rollback() {
        DefaultLease.requireOpen(closed, "roll back", null);
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
        DefaultLease.requireOpen(closed, "extend", null);
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
