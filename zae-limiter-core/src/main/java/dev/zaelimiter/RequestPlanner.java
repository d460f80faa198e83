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
import dev.zaelimiter.store.LimiterStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plans a call before anything is written: validates its input, reads and resolves the configuration of every
 * target (and its cascade parent), refuses a paused or disabled resource, and turns the amounts into the debits the
 * store applies all or nothing. Also turns what the store answered into the statuses callers see.
 */
final class RequestPlanner {

    private final LimiterStore store;

    RequestPlanner(LimiterStore store) {
        this.store = store;
    }

    /**
     * The debits one call makes (the first {@code primaryDebits} of them for the first target: its entity and
     * parent), the first target's resolution, whether it is bypassed, and the cascades whose parent has no limits.
     */
    record Plan(List<BucketDebit> debits, int primaryDebits, Resolution primary, boolean primaryBypassed,
            List<UndebitedParents.Skipped> undebited) {
    }

    /** Passed as {@code now} to {@link #plan} by reads that report balances whether or not a pause is on. */
    static final long NO_PAUSE_CHECK = Long.MAX_VALUE;

    /** The debits of {@code request}; raises when it is invalid or paused at {@code now}. */
    Plan plan(AcquireRequest request, long now) {
        List<Limit> override = request.limits() == null ? null : Limit.validateLevel("limits", request.limits());
        Map<BucketKey, BucketDebit> debits = new LinkedHashMap<>();
        List<UndebitedParents.Skipped> undebited = new ArrayList<>(0);
        String leaseId = LeaseIds.next();
        Resolution primary = target(request.entityId(), request.resource(), request.consume(), override, now, leaseId,
                debits, undebited);
        int primaryDebits = debits.size();
        for (AcquireRequest.Target other : request.also()) {
            target(other.entityId(), other.resource(), other.consume(), null, now, leaseId, debits, undebited);
        }
        return new Plan(List.copyOf(debits.values()), primaryDebits, primary,
                primary.disabled() == DisabledMode.BYPASS, undebited);
    }

    /**
     * Adds the debits of one target (its entity and, when it cascades, its parent) to {@code debits}, merging the
     * amounts of a bucket that an earlier target already debits, and returns the target's resolution. A parent with
     * no limits for the resource at any level cannot be debited: it is added to {@code undebited} instead.
     */
    private Resolution target(String entity, String res, Map<String, Long> consume, List<Limit> override, long now,
            String leaseId, Map<BucketKey, BucketDebit> debits, List<UndebitedParents.Skipped> undebited) {
        String entityId = Identifiers.entityId("entityId", entity);
        String resource = Identifiers.resource("resource", res);
        Map<String, Long> amounts = validateAmounts(consume);
        ConfigSnapshot snapshot = store.loadConfig(entityId, resource);
        long pausedUntil = pausedUntil(snapshot);
        if (pausedUntil > now) {
            throw new ResourcePausedException(entityId, resource, Instant.ofEpochMilli(pausedUntil),
                    Duration.ofMillis(pausedUntil - now));
        }
        Resolution resolution = ConfigResolver.resolve(snapshot, override);
        merge(debits, debit(entityId, resource, resolution, amounts, true, leaseId));
        if (resolution.cascades()) {
            Resolution parent = ConfigResolver.resolve(store.loadConfig(resolution.parentId(), resource), null);
            if (!parent.limits().isEmpty()) {
                merge(debits, debit(resolution.parentId(), resource, parent, amounts, false, leaseId));
            } else if (parent.disabled() == DisabledMode.DISABLED) {
                throw new ResourceDisabledException(resolution.parentId(), resource);
            } else if (parent.disabled() != DisabledMode.BYPASS) {
                undebited.add(new UndebitedParents.Skipped(entityId, resolution.parentId(), resource));
            }
        }
        return resolution;
    }

    /**
     * Adds {@code debit} to {@code debits}, summing the amounts of a bucket that another target already debits. The
     * sum for one limit is bounded like a single amount, so that it can neither wrap nor exceed what a store holds.
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
            return first.withAmounts(sum);
        });
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
        Map<String, Long> amountsMilli = new HashMap<>(amounts.size() * 2);
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
            if (amountMilli > Limits.maxCapacityMilli(limit) && !limit.isSoft()
                    && resolution.disabled() != DisabledMode.BYPASS) {
                throw new UnsatisfiableRequestException(entityId, resource, limit.name(),
                        Limits.maxCapacityMilli(limit) / Limits.MILLI, e.getValue());
            }
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
        return new BucketDebit(new BucketKey(entityId, resource), resolution.bucketLimits(), amountsMilli,
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
                statuses.add(new LimitStatus(debit.key().entityId(), debit.key().resource(), limit.name(),
                        Limits.parametersAt(limit, state.lastRefillMillis()).capacityMilli() / Limits.MILLI,
                        Math.floorDiv(balance, Limits.MILLI), amount / Limits.MILLI, exceeded,
                        limit.isSoft(), Duration.ofMillis(wait)));
            }
        }
        return statuses;
    }

    /** The later of the pauses of the entity on the resource and of the resource, or {@code Long.MIN_VALUE}. */
    static long pausedUntil(ConfigSnapshot snapshot) {
        Long entity = snapshot.entityResource().pausedUntil();
        Long resource = snapshot.resource().pausedUntil();
        return Math.max(entity == null ? Long.MIN_VALUE : entity, resource == null ? Long.MIN_VALUE : resource);
    }
}
