package dev.zaelimiter.store;

import dev.zaelimiter.UsageGranularity;

import java.util.List;

/**
 * The usage history of a store: counters per entity, resource, limit and UTC hour or day, which outlive buckets
 * (eviction, expiry, resets). Reached through {@link LimiterStore#usage()}. Implementations must be thread-safe and
 * raise {@link dev.zaelimiter.StoreUnavailableException} for transport failures.
 */
public interface UsageStore {

    /**
     * Adds {@code write} to its period unless the period already holds that writer's sequence or a later one.
     *
     * @return whether the counts were added now (false: they had been before)
     */
    boolean add(UsageWrite write);

    /**
     * The periods of {@code entityId} (on {@code resource}, or on every resource for {@code null}) whose start lies
     * in [{@code fromMillis}, {@code toMillis}), oldest first.
     */
    List<UsagePeriod> entityUsage(String entityId, String resource, UsageGranularity granularity, long fromMillis,
            long toMillis);

    /**
     * The periods of every entity on {@code resource} whose start lies in [{@code fromMillis}, {@code toMillis}). The
     * limiter asks both reads for at most {@link dev.zaelimiter.RateLimiterAdmin#MAX_USAGE_PERIODS} periods.
     */
    List<UsagePeriod> resourceUsage(String resource, UsageGranularity granularity, long fromMillis, long toMillis);
}
