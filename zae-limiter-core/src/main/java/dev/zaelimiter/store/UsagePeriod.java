package dev.zaelimiter.store;

import dev.zaelimiter.UsageGranularity;

import java.util.Map;

/**
 * The counters of every limit of one bucket over one hour or day.
 *
 * @param key         the bucket (entity and resource)
 * @param granularity hour or day
 * @param startMillis start of the period, epoch ms (UTC)
 * @param limits      counters per limit name
 */
public record UsagePeriod(BucketKey key, UsageGranularity granularity, long startMillis,
        Map<String, UsageCounts> limits) {

    public UsagePeriod {
        limits = Map.copyOf(limits);
    }
}
