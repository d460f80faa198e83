package dev.zaelimiter;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.resolution.ConfigResolver;
import dev.zaelimiter.internal.resolution.Resolution;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.LimiterStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plans a call before anything is written: validates its input, reads and resolves the configuration of every
 * target (and its cascade parent), refuses a paused or disabled resource, and turns the amounts into the debits the
 * store applies all or nothing. Also turns what the store answered into the statuses callers see.
 */
final class RequestPlanner {

    /** Entities with configuration of their own whose resolution is kept; beyond, the cache starts over. */
    static final int MAX_OWN_RESOLUTIONS = 10_000;

    private final LimiterStore store;
    /** Whether in-place decisions count usage: the limiter keeps a usage history. */
    private final boolean countsUsage;
    /** The store's configuration versions, or {@code null}: the configuration is loaded for every call. */
    private final InPlaceBuckets versions;

    /**
     * The resolution of each resource for the entities that configure nothing of their own (no record, no level),
     * which all resolve alike. An entry stands while the store answers with the same resource and system levels;
     * while the store's {@linkplain InPlaceBuckets#sharedConfigVersion configuration version} is the entry's, the
     * levels are not loaded again.
     */
    private final ConcurrentHashMap<String, PlanBasis> shared = new ConcurrentHashMap<>();

    /** The resolutions of entities that have a record or a level of their own, while the store answers the same. */
    private final ConcurrentHashMap<BucketKey, PlanBasis> own = new ConcurrentHashMap<>();

    RequestPlanner(LimiterStore store, boolean countsUsage, InPlaceBuckets versions) {
        this.store = store;
        this.countsUsage = countsUsage;
        this.versions = versions;
    }

    /**
     * The debits one call makes (the first {@code primaryDebits} of them for the first target: its entity and
     * parent), the first target's resolution, whether it is bypassed, the cascades whose parent has no limits, and
     * whether any debit takes a concurrency slot (which only then has a lease id).
     */
    record Plan(List<BucketDebit> debits, int primaryDebits, Resolution primary, boolean primaryBypassed,
            List<UndebitedParents.Skipped> undebited, boolean takesSlots) {

        Plan(List<BucketDebit> debits, int primaryDebits, Resolution primary, boolean primaryBypassed,
                List<UndebitedParents.Skipped> undebited) {
            this(debits, primaryDebits, primary, primaryBypassed, undebited, takesSlots(debits));
        }

        private static boolean takesSlots(List<BucketDebit> debits) {
            for (BucketDebit debit : debits) {
                if (debit.takesSlots()) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * What a configuration snapshot resolves to, with what the planning of a call derives from it alone, computed
     * once: the snapshot is kept to tell whether the store still answers the same (level by level, by identity:
     * stores answer a changed level with a new object).
     */
    static final class PlanBasis {

        final ConfigSnapshot snapshot;
        final Resolution resolution;
        final List<Limit> bucketLimits;
        final List<Limit> keptLimits;
        final long pausedUntil;
        /** Whether a bucket under these limits can take a concurrency slot, so that a call needs a lease id. */
        final boolean concurrency;
        /**
         * Whether a lone call of an entity resolved like this one debits one bucket under one plain limit, with
         * nothing to check but the pause: what {@link dev.zaelimiter.store.InPlaceBuckets} decides in place.
         */
        final boolean oneLimit;
        /** The amounts last validated as a lone target's against this resolution, with the map they came from. */
        volatile Amounts amounts;
        /** Shared resolutions: the store's configuration version read before the levels were last found these. */
        volatile long version = InPlaceBuckets.UNVERSIONED;

        PlanBasis(ConfigSnapshot snapshot) {
            this.snapshot = snapshot;
            this.resolution = ConfigResolver.resolve(snapshot, null);
            this.bucketLimits = resolution.bucketLimits();
            this.keptLimits = resolution.keptLimits();
            this.pausedUntil = pausedUntil(snapshot);
            boolean concurrency = false;
            for (Limit limit : bucketLimits) {
                concurrency |= limit.isConcurrency();
            }
            this.concurrency = concurrency;
            this.oneLimit = simple() && bucketLimits.size() == 1 && keptLimits == bucketLimits;
        }

        /** The one limit of a {@linkplain #oneLimit one-limit} resolution's bucket. */
        Limit limit() {
            return bucketLimits.get(0);
        }

        List<Limit> bucketLimits() {
            return bucketLimits;
        }

        boolean bypass() {
            return resolution.disabled() == DisabledMode.BYPASS;
        }

        /** Whether a lone call of an entity resolved like this one can skip the full planning. */
        boolean simple() {
            return !concurrency && !resolution.cascades() && resolution.disabled() != DisabledMode.DISABLED
                    && !resolution.limits().isEmpty();
        }
    }

    /**
     * A consume map and its validated milli-token amounts. The map is a request's own, which no one changes, and the
     * amounts depend on its content alone: a request consuming the same amounts has the same.
     */
    record Amounts(Map<String, Long> consume, Map<String, Long> amountsMilli, long firstMilli,
            InPlaceBuckets.Take take) {

        /**
         * {@code amountsMilli} for {@code target}, with what it takes of its first limit kept apart and, when the
         * target is a {@linkplain PlanBasis#oneLimit one-limit} one, what each of its calls takes in place
         * ({@code countUsage}: counted for the usage history).
         */
        static Amounts of(Map<String, Long> consume, Map<String, Long> amountsMilli, PlanBasis target,
                boolean countUsage) {
            List<Limit> limits = target.bucketLimits;
            long firstMilli = limits.isEmpty() ? 0 : amountsMilli.getOrDefault(limits.get(0).name(), 0L);
            return new Amounts(consume, amountsMilli, firstMilli, target.oneLimit
                    ? new InPlaceBuckets.Take(limits, firstMilli, target.bypass(), countUsage) : null);
        }

        boolean sameAs(Map<String, Long> other) {
            return consume == other || consume.equals(other);
        }
    }

    /** Passed as {@code now} to {@link #plan} by reads that report balances whether or not a pause is on. */
    static final long NO_PAUSE_CHECK = Long.MAX_VALUE;

    /** The debits of {@code request}; raises when it is invalid or paused at {@code now}. */
    Plan plan(AcquireRequest request, long now) {
        return plan(request, now, lone(request));
    }

    /**
     * The resolution of {@code request}'s one target after its input was checked, when it has one target and no
     * override; otherwise {@code null}. Raises when the input is invalid.
     */
    PlanBasis lone(AcquireRequest request) {
        return request.limits() == null && request.also().isEmpty()
                ? lone(request.entityId(), request.resource(), request.consume()) : null;
    }

    /**
     * The amounts of a call that a store can decide in place, with {@code lone} its {@linkplain #lone resolution}:
     * when it resolves to a {@linkplain PlanBasis#oneLimit one-limit} bucket and consumes the amounts last validated
     * against it. Raises when the target is paused at {@code now}. Otherwise {@code null}, and the call is
     * {@linkplain #plan(AcquireRequest, long, PlanBasis) planned}.
     */
    static Amounts oneLimit(PlanBasis lone, String entityId, String resource, Map<String, Long> consume, long now) {
        Amounts amounts = lone.amounts;
        if (!lone.oneLimit || amounts == null || !amounts.sameAs(consume)) {
            return null;
        }
        checkPause(lone, entityId, resource, now);
        return amounts;
    }

    /**
     * The plan of a lone target resolved as {@code target} that consumes {@code amounts}: one debit built from what
     * was derived before (for a call decided in place, what comes after the decision needs it: corrections,
     * statuses).
     */
    static Plan lonePlan(PlanBasis target, BucketKey key, Amounts amounts) {
        Resolution resolution = target.resolution;
        boolean bypass = target.bypass();
        BucketDebit debit = new BucketDebit(key, target.bucketLimits, amounts.amountsMilli(), bypass,
                resolution.source().isDefault(), null, target.keptLimits);
        return new Plan(List.of(debit), 1, resolution, bypass, List.of(), false);
    }

    /** The debits of {@code request}, whose {@linkplain #lone lone resolution} is {@code lone} (or none). */
    Plan plan(AcquireRequest request, long now, PlanBasis lone) {
        if (lone != null) {
            Plan plan = reuse(lone, request, now);
            if (plan != null) {
                return plan;
            }
        }
        List<Limit> override = request.limits() == null ? null : Limit.validateLevel("limits", request.limits());
        Map<BucketKey, BucketDebit> debits = new LinkedHashMap<>();
        List<UndebitedParents.Skipped> undebited = new ArrayList<>(0);
        LeaseId leaseId = new LeaseId();
        Resolution primary = target(request.entityId(), request.resource(), request.consume(), override, now, leaseId,
                debits, undebited, lone);
        int primaryDebits = debits.size();
        for (AcquireRequest.Target other : request.also()) {
            target(other.entityId(), other.resource(), other.consume(), null, now, leaseId, debits, undebited, null);
        }
        return new Plan(List.copyOf(debits.values()), primaryDebits, primary,
                primary.disabled() == DisabledMode.BYPASS, undebited.isEmpty() ? List.of() : undebited);
    }

    /**
     * The resolution of a lone target without override, after the checks that come before it, in the same order:
     * the entity id, the resource (skipped for one planned for before) and the amounts (skipped for the amounts
     * validated last for the resource).
     */
    PlanBasis lone(String entity, String resource, Map<String, Long> consume) {
        String entityId = Identifiers.entityId("entityId", entity);
        PlanBasis known = resource == null ? null : shared.get(resource);
        if (known == null) {
            Identifiers.resource("resource", resource);
        }
        Amounts validated = known == null ? null : known.amounts;
        if (validated == null || !validated.sameAs(consume)) {
            validateAmounts(consume);
        }
        long version = known == null || versions == null ? InPlaceBuckets.UNVERSIONED : known.version;
        if (version != InPlaceBuckets.UNVERSIONED && version == versions.sharedConfigVersion(entityId)) {
            return known;
        }
        return resolved(entityId, resource, known);
    }

    /**
     * The plan of a lone target resolved as {@code target}, when that resolution is {@linkplain PlanBasis#simple()
     * simple} and the request consumes the amounts last validated against it: the pause check, and a debit built
     * from what was derived before. Otherwise {@code null}, and the call is planned in full.
     */
    private static Plan reuse(PlanBasis target, AcquireRequest request, long now) {
        Amounts amounts = target.amounts;
        if (amounts == null || !amounts.sameAs(request.consume()) || !target.simple()) {
            return null;
        }
        String entityId = request.entityId();
        String resource = request.resource();
        checkPause(target, entityId, resource, now);
        return lonePlan(target, new BucketKey(entityId, resource), amounts);
    }

    /** The resolution of {@code entityId} on {@code resource} as the store answers now. */
    private PlanBasis resolved(String entityId, String resource) {
        return resolved(entityId, resource, null);
    }

    /**
     * {@link #resolved(String, String)}, with {@code sharedKnown} what the cache of entities that configure nothing held
     * for the resource a moment ago ({@code null}: look it up if needed).
     */
    private PlanBasis resolved(String entityId, String resource, PlanBasis sharedKnown) {
        long version = versions == null ? InPlaceBuckets.UNVERSIONED : versions.sharedConfigVersion(entityId);
        ConfigSnapshot snapshot = store.loadConfig(entityId, resource);
        if (snapshot.entity() == null && snapshot.entityResource().isEmpty() && snapshot.entityDefault().isEmpty()) {
            PlanBasis known = sharedKnown != null ? sharedKnown : shared.get(resource);
            if (known == null || known.snapshot.resource() != snapshot.resource()
                    || known.snapshot.system() != snapshot.system()) {
                known = new PlanBasis(snapshot);
                shared.put(resource, known);
            }
            if (version != InPlaceBuckets.UNVERSIONED) {
                known.version = version;        // read before the levels: a later change is seen at the next call
            }
            return known;
        }
        BucketKey key = new BucketKey(entityId, resource);
        PlanBasis known = own.get(key);
        if (known != null && sameLevels(known.snapshot, snapshot)) {
            return known;
        }
        if (own.size() >= MAX_OWN_RESOLUTIONS) {
            own.clear();
        }
        PlanBasis fresh = new PlanBasis(snapshot);
        own.put(key, fresh);
        return fresh;
    }

    private static boolean sameLevels(ConfigSnapshot a, ConfigSnapshot b) {
        return a == b || a.entity() == b.entity() && a.entityResource() == b.entityResource()
                && a.entityDefault() == b.entityDefault() && a.resource() == b.resource() && a.system() == b.system();
    }

    private static void checkPause(PlanBasis target, String entityId, String resource, long now) {
        if (target.pausedUntil > now) {
            throw new ResourcePausedException(entityId, resource, Instant.ofEpochMilli(target.pausedUntil),
                    Duration.ofMillis(target.pausedUntil - now));
        }
    }

    /** The lease id of one call, made when a debit first needs one (a concurrency slot), shared by all its debits. */
    private static final class LeaseId {

        private String id;

        String forDebit(boolean concurrency) {
            if (!concurrency) {
                return null;
            }
            if (id == null) {
                id = LeaseIds.next();
            }
            return id;
        }
    }

    /**
     * Adds the debits of one target (its entity and, when it cascades, its parent) to {@code debits}, merging the
     * amounts of a bucket that an earlier target already debits, and returns the target's resolution. A parent with
     * no limits for the resource at any level cannot be debited: it is added to {@code undebited} instead. For a
     * lone target, {@code lone} is its resolution, found after its input was checked; the amounts validated for
     * it are then remembered.
     */
    private Resolution target(String entity, String res, Map<String, Long> consume, List<Limit> override, long now,
            LeaseId leaseId, Map<BucketKey, BucketDebit> debits, List<UndebitedParents.Skipped> undebited,
            PlanBasis lone) {
        String entityId = lone != null ? entity : Identifiers.entityId("entityId", entity);
        String resource = lone != null ? res : Identifiers.resource("resource", res);
        Map<String, Long> amounts = lone != null ? consume : validateAmounts(consume);
        PlanBasis target = lone != null ? lone : resolved(entityId, resource);
        checkPause(target, entityId, resource, now);
        Resolution resolution = override == null ? target.resolution
                : ConfigResolver.resolve(target.snapshot, override);
        boolean concurrency = target.concurrency
                || override != null && resolution.bucketLimits().stream().anyMatch(Limit::isConcurrency);
        BucketDebit own = debit(entityId, resource, resolution, amounts, true, leaseId.forDebit(concurrency));
        if (lone != null && !consume.isEmpty()) {
            target.amounts = Amounts.of(consume, own.amountsMilli(), target, countsUsage); // reads consume nothing
        }
        merge(debits, own);
        if (resolution.cascades()) {
            PlanBasis parent = resolved(resolution.parentId(), resource);
            Resolution parentResolution = parent.resolution;
            if (!parentResolution.limits().isEmpty()) {
                merge(debits, debit(resolution.parentId(), resource, parentResolution, amounts, false,
                        leaseId.forDebit(parent.concurrency)));
            } else if (parentResolution.disabled() == DisabledMode.DISABLED) {
                throw new ResourceDisabledException(resolution.parentId(), resource);
            } else if (parentResolution.disabled() != DisabledMode.BYPASS) {
                undebited.add(new UndebitedParents.Skipped(entityId, resolution.parentId(), resource));
            }
        }
        return resolution;
    }

    /**
     * Adds {@code debit} to {@code debits}, summing the amounts of a bucket that another target already debits. The
     * sum for one limit is bounded like a single amount, so that it can neither wrap nor exceed what a store holds,
     * and like a single amount it is unsatisfiable when a hard limit could never hold it.
     */
    private static void merge(Map<BucketKey, BucketDebit> debits, BucketDebit debit) {
        debits.merge(debit.key(), debit, (first, second) -> {
            Map<String, Long> sum = new HashMap<>(first.amountsMilli());
            second.amountsMilli().forEach((name, amount) -> {
                long total = sum.merge(name, amount, BucketMath::saturatedAdd);
                if (total > Limit.MAX_TOKENS * Limits.MILLI) {
                    throw new ValidationException("consume." + name, total / Limits.MILLI, "the amounts that one"
                            + " call's targets take from one limit of " + debit.key().entityId() + " on "
                            + debit.key().resource() + " add up to at most " + Limit.MAX_TOKENS);
                }
            });
            for (Limit limit : first.limits()) {
                Long total = sum.get(limit.name());
                if (total != null && !limit.isConcurrency()) {
                    checkSatisfiable(debit.key().entityId(), debit.key().resource(), limit, total,
                            first.countOnly());
                }
            }
            return first.withAmounts(sum);
        });
    }

    /** Raises when {@code amountMilli} of {@code limit} could never be admitted: it exceeds every capacity. */
    private static void checkSatisfiable(String entityId, String resource, Limit limit, long amountMilli,
            boolean bypassed) {
        if (amountMilli > Limits.maxCapacityMilli(limit) && !limit.isSoft() && !bypassed) {
            throw new UnsatisfiableRequestException(entityId, resource, limit.name(),
                    Limits.maxCapacityMilli(limit) / Limits.MILLI, amountMilli / Limits.MILLI);
        }
    }

    /**
     * The debit of one entity. The primary entity must have every limit the call names; a cascade parent is debited
     * on the limits it shares with the call. An amount above a hard limit's capacity could never be admitted; soft
     * limits and bypassed entities never consult the capacity, so they take any amount. Every concurrency limit
     * the call does not name takes one slot for {@code leaseId}.
     */
    private static BucketDebit debit(String entityId, String resource, Resolution resolution, Map<String, Long> amounts,
            boolean primary, String leaseId) {
        if (resolution.disabled() == DisabledMode.DISABLED) {
            throw new ResourceDisabledException(entityId, resource);
        }
        if (resolution.limits().isEmpty()) {
            throw new NoLimitsConfiguredException(entityId, resource);
        }
        Map<String, Long> amountsMilli = new HashMap<>(amounts.size() * 2 + 2);
        for (Map.Entry<String, Long> e : amounts.entrySet()) {
            Limit limit = resolution.limit(e.getKey());
            if (limit == null) {
                if (primary) {
                    throw new UnknownLimitException(entityId, resource, e.getKey(),
                            resolution.limits().stream().map(Limit::name).toList());
                }
                continue;
            }
            long amountMilli = e.getValue() * Limits.MILLI;
            checkSatisfiable(entityId, resource, limit, amountMilli, resolution.disabled() == DisabledMode.BYPASS);
            if (limit.isConcurrency() && e.getValue() > 1) {
                throw new ValidationException("consume." + e.getKey(), e.getValue(), "a call takes one slot of a"
                        + " concurrency limit (or 0 to take none)");
            }
            amountsMilli.put(e.getKey(), amountMilli);
        }
        for (Limit limit : resolution.limits()) {
            if (limit.isConcurrency() && !amounts.containsKey(limit.name())) {
                amountsMilli.put(limit.name(), Limits.MILLI);
            }
        }
        return new BucketDebit(new BucketKey(entityId, resource), resolution.bucketLimits(), Map.copyOf(amountsMilli),
                resolution.disabled() == DisabledMode.BYPASS, resolution.source().isDefault(), leaseId,
                resolution.keptLimits());
    }

    static Map<String, Long> validateAmounts(Map<String, Long> consume) {
        for (Map.Entry<String, Long> e : consume.entrySet()) {
            Identifiers.limitName("consume", e.getKey());
            Long amount = e.getValue();
            if (amount == null || amount < 0) {
                throw new ValidationException("consume." + e.getKey(), amount, "an amount is zero or more");
            }
            if (amount > Limit.MAX_TOKENS) {
                throw new ValidationException("consume." + e.getKey(), amount, "an amount is at most "
                        + Limit.MAX_TOKENS);
            }
        }
        return consume;
    }

    static List<LimitStatus> statuses(Plan plan, List<BucketSnapshot> snapshots, boolean admitted) {
        List<LimitStatus> statuses = new ArrayList<>();
        for (int i = 0; i < plan.debits().size(); i++) {
            BucketDebit debit = plan.debits().get(i);
            BucketState state = snapshots.get(i).state();
            for (Limit limit : debit.limits()) {
                long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
                long balance = state.balanceMilli(limit.name());
                boolean exceeded = !admitted && BucketState.refuses(limit, amount, balance, debit.countOnly());
                long wait = exceeded ? state.retryAfterMillis(limit, amount) : 0;
                statuses.add(status(debit.key(), limit, amount, balance, state.lastRefillMillis(), exceeded, wait));
            }
        }
        return statuses;
    }

    /**
     * The status of {@code limit} of the bucket {@code key} in a decision that asked {@code amountMilli} of it and
     * found {@code balanceMilli} (after the debit when admitted) in the bucket refilled to {@code atMillis}.
     */
    static LimitStatus status(BucketKey key, Limit limit, long amountMilli, long balanceMilli, long atMillis,
            boolean exceeded, long waitMillis) {
        return new LimitStatus(key.entityId(), key.resource(), limit.name(),
                Limits.parametersAt(limit, atMillis).capacityMilli() / Limits.MILLI,
                Math.floorDiv(balanceMilli, Limits.MILLI), amountMilli / Limits.MILLI, exceeded, limit.isSoft(),
                waitMillis == 0 ? Duration.ZERO : Duration.ofMillis(waitMillis));
    }

    /** The later of the pauses of the entity on the resource and of the resource, or {@code Long.MIN_VALUE}. */
    static long pausedUntil(ConfigSnapshot snapshot) {
        Long entity = snapshot.entityResource().pausedUntil();
        Long resource = snapshot.resource().pausedUntil();
        return Math.max(entity == null ? Long.MIN_VALUE : entity, resource == null ? Long.MIN_VALUE : resource);
    }
}
