package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.resolution.Resolution;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketSnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The lease of an admitted call: remembers what it took from each bucket so that it can adjust or give it back. */
final class DefaultLease implements Lease {

    private static final Logger log = LoggerFactory.getLogger(DefaultLease.class);

    private final LeaseWrites writes;
    private final RequestPlanner.Plan plan;
    private final List<BucketDebit> debits;
    private final List<BucketSnapshot> admittedAs;
    /** What each debit has taken so far, per limit; {@code null} until an adjustment changes it from the debit's. */
    private List<Map<String, Long>> takenMilli;
    private volatile List<LimitStatus> statuses;
    private boolean closed;
    private final long bookedWaitMillis;

    /**
     * The lease of a call admitted by {@code plan}, whose buckets were {@code admittedAs} right after it. Statuses
     * are built from them when first asked for.
     */
    DefaultLease(LeaseWrites writes, RequestPlanner.Plan plan, List<BucketSnapshot> admittedAs) {
        this(writes, plan, admittedAs, 0);
    }

    /** As above, for a call booked {@code bookedWaitMillis} ahead of its slot (zero: admitted now). */
    DefaultLease(LeaseWrites writes, RequestPlanner.Plan plan, List<BucketSnapshot> admittedAs,
            long bookedWaitMillis) {
        this.writes = writes;
        this.plan = plan;
        this.debits = plan.debits();
        this.admittedAs = admittedAs;
        this.bookedWaitMillis = bookedWaitMillis;
    }

    /** How long after its admission the slot of {@code lease} comes: zero unless a booking made it. */
    static long bookedWaitMillis(Lease lease) {
        return lease instanceof DefaultLease booked ? booked.bookedWaitMillis : 0;
    }

    static Lease unrecorded() {
        return new DegradedLease();
    }

    @Override
    public synchronized void adjust(String limitName, long amount) {
        requireOpen(closed, "adjust", limitName);
        Identifiers.limitName("limitName", limitName);
        Resolution primary = plan.primary();
        Limit limit = primary.limit(limitName);
        if (limit == null) {
            BucketDebit first = debits.get(0);
            throw new UnknownLimitException(first.key().entityId(), first.key().resource(), limitName,
                    primary.limits().stream().map(Limit::name).toList());
        }
        if (limit.isConcurrency()) {
            throw new ValidationException("limitName", limitName, "a concurrency limit takes one slot per lease;"
                    + " it cannot be adjusted");
        }
        if (amount > Limit.MAX_TOKENS || amount < -Limit.MAX_TOKENS) {
            throw new ValidationException("amount", amount, "an adjustment is at most " + Limit.MAX_TOKENS
                    + " tokens either way");
        }
        if (amount == 0) {
            return;
        }
        long deltaMilli = amount * Limits.MILLI;
        List<BucketDebit> changes = new ArrayList<>(debits.size());
        List<Integer> touched = new ArrayList<>(debits.size());
        for (int i = 0; i < plan.primaryDebits(); i++) {
            BucketDebit debit = debits.get(i);
            if (holds(debit, limitName)) {
                changes.add(debit.withAmounts(Map.of(limitName, deltaMilli)));
                touched.add(i);
            }
        }
        if (write(changes, "adjust")) {
            List<Map<String, Long>> taken = taken();
            for (int i : touched) {
                // what the lease holds never goes below nothing: a refund beyond its take leaves it holding 0
                taken.get(i).compute(limitName,
                        (name, held) -> Math.max(0, BucketMath.saturatedAdd(held == null ? 0 : held, deltaMilli)));
            }
        }
    }

    @Override
    public synchronized void rollback() {
        requireOpen(closed, "roll back", null);
        closed = true;
        List<BucketDebit> refunds = new ArrayList<>(debits.size());
        for (int i = 0; i < debits.size(); i++) {
            Map<String, Long> refund = new HashMap<>();
            (takenMilli == null ? debits.get(i).amountsMilli() : takenMilli.get(i)).forEach((name, milli) -> {
                if (milli > 0) {
                    refund.put(name, -milli);
                }
            });
            if (!refund.isEmpty()) {
                refunds.add(debits.get(i).withAmounts(refund));
            }
        }
        write(refunds, "rollback");
        writes.released(debits.get(0).key());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!plan.takesSlots()) {
            return;
        }
        List<BucketDebit> releases = new ArrayList<>();
        for (BucketDebit debit : debits) {
            if (debit.takesSlots()) {
                Map<String, Long> slots = new HashMap<>();
                for (Limit limit : debit.limits()) {
                    if (limit.isConcurrency() && debit.amountsMilli().getOrDefault(limit.name(), 0L) > 0) {
                        slots.put(limit.name(), -debit.amountsMilli().get(limit.name()));
                    }
                }
                releases.add(debit.withAmounts(slots));
            }
        }
        write(releases, "release");
        if (!releases.isEmpty()) {
            writes.released(debits.get(0).key());
        }
    }

    @Override
    public synchronized boolean extend() {
        requireOpen(closed, "extend", null);
        List<BucketDebit> holding = debits.stream().filter(BucketDebit::takesSlots).toList();
        if (holding.isEmpty()) {
            return true;
        }
        try {
            return writes.renew(holding);
        } catch (StoreUnavailableException e) {
            writes.policy().absorb(e, "store unavailable, lease on {} not extended: {}", debits.get(0).key(),
                    e.getMessage());
            return false;
        }
    }

    private static boolean holds(BucketDebit debit, String limitName) {
        for (Limit limit : debit.limits()) {
            if (limit.name().equals(limitName)) {
                return true;
            }
        }
        return false;
    }

    /** What each debit has taken so far, made modifiable on the first adjustment. */
    private List<Map<String, Long>> taken() {
        if (takenMilli == null) {
            takenMilli = new ArrayList<>(debits.size());
            for (BucketDebit debit : debits) {
                takenMilli.add(new HashMap<>(debit.amountsMilli()));
            }
        }
        return takenMilli;
    }

    /** Applies {@code changes}; store failures follow the limiter's policy. Returns whether they were written. */
    private boolean write(List<BucketDebit> changes, String what) {
        if (changes.isEmpty()) {
            return true;
        }
        try {
            writes.apply(changes);
            return true;
        } catch (StoreUnavailableException e) {
            writes.policy().absorb(e, "store unavailable, {} of lease on {} not recorded: {}", what,
                    debits.get(0).key(), e.getMessage());
            return false;
        }
    }

    @Override
    public List<String> overdrawn() {
        BucketDebit first = debits.get(0);
        return statuses().stream()
                .filter(s -> s.entityId().equals(first.key().entityId()) && s.overdrawn())
                .map(LimitStatus::limitName)
                .toList();
    }

    @Override
    public boolean bypassed() {
        return debits.get(0).countOnly();
    }

    @Override
    public boolean degraded() {
        return false;
    }

    @Override
    public Unavailable onUnavailable() {
        return writes.policy().policy();
    }

    @Override
    public List<LimitStatus> statuses() {
        List<LimitStatus> built = statuses;
        if (built == null) {
            built = List.copyOf(RequestPlanner.statuses(plan, admittedAs, true));
            statuses = built;
        }
        return built;
    }

    /**
     * Throws {@link LeaseClosedException} when a lease is {@code closed}, naming the {@code action} tried and its
     * {@code subject} (or none); the message is only built when it is thrown.
     */
    static void requireOpen(boolean closed, String action, String subject) {
        if (closed) {
            throw new LeaseClosedException(subject == null ? action : action + " " + subject);
        }
    }

    /** The lease of a call admitted while the store was unavailable: debits nothing. */
    private static final class DegradedLease implements Lease {

        private boolean closed;

        @Override
        public synchronized void adjust(String limitName, long amount) {
            requireOpen(closed, "adjust", limitName);
        }

        @Override
        public synchronized void rollback() {
            requireOpen(closed, "roll back", null);
            closed = true;
        }

        @Override
        public synchronized void close() {
            closed = true;
        }

        @Override
        public synchronized boolean extend() {
            requireOpen(closed, "extend", null);
            return true;
        }

        @Override
        public List<String> overdrawn() {
            return List.of();
        }

        @Override
        public boolean bypassed() {
            return false;
        }

        @Override
        public boolean degraded() {
            return true;
        }

        @Override
        public Unavailable onUnavailable() {
            return Unavailable.ALLOW;
        }

        @Override
        public List<LimitStatus> statuses() {
            return List.of();
        }
    }
}
