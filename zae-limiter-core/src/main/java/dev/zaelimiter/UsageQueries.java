package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.store.UsagePeriod;
import dev.zaelimiter.store.UsageStore;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The usage history reads behind {@link RateLimiterAdmin#usage} and {@link RateLimiterAdmin#topUsage}: validated,
 * after this process's own counts are flushed, as rows per entity, resource, limit and period.
 */
final class UsageQueries {

    private final LimiterStore store;
    /** This process's counts, or {@code null} when it keeps none. */
    private final UsageRecorder usage;

    UsageQueries(LimiterStore store, UsageRecorder usage) {
        this.store = store;
        this.usage = usage;
    }

    /** As {@link RateLimiterAdmin#usage(String, String, String, UsageGranularity, Instant, Instant)}. */
    List<Usage> of(String entityId, String resource, String limitName, UsageGranularity granularity,
            Instant from, Instant to) {
        String id = Identifiers.entityId("entityId", entityId);
        String res = resource == null ? null : Identifiers.resource("resource", resource);
        String limit = limitName == null ? null : Identifiers.limitName("limitName", limitName);
        long[] range = range(granularity, from, to);
        List<Usage> rows = new ArrayList<>();
        if (range[0] >= range[1]) {
            return rows;                                      // no period starts in the range
        }
        for (UsagePeriod period : usageStore().entityUsage(id, res, granularity, range[0], range[1])) {
            period.limits().entrySet().stream()
                    .filter(e -> limit == null || limit.equals(e.getKey()))
                    .sorted(Map.Entry.comparingByKey())
                    .forEach(e -> rows.add(usage(period.key(), e.getKey(), period.startMillis(),
                            period.startMillis() + granularity.millis(), e.getValue())));
        }
        rows.sort(Comparator.comparing(Usage::from).thenComparing(Usage::resource).thenComparing(Usage::limitName));
        return rows;
    }

    /** As {@link RateLimiterAdmin#topUsage}. */
    List<Usage> top(String resource, String limitName, UsageGranularity granularity, Instant from, Instant to,
            int n) {
        String res = Identifiers.resource("resource", resource);
        String limit = Identifiers.limitName("limitName", limitName);
        if (n < 1) {
            throw new ValidationException("n", n, "ask for at least one entity");
        }
        long[] range = range(granularity, from, to);
        Map<String, UsageCounts> totals = new HashMap<>();
        if (range[0] >= range[1]) {
            return List.of();                                 // no period starts in the range
        }
        for (UsagePeriod period : usageStore().resourceUsage(res, granularity, range[0], range[1])) {
            UsageCounts counts = period.limits().get(limit);
            if (counts != null) {
                totals.merge(period.key().entityId(), counts, UsageCounts::plus);
            }
        }
        return totals.entrySet().stream()
                .sorted(Comparator.<Map.Entry<String, UsageCounts>>comparingLong(e -> -e.getValue().consumedMilli())
                        .thenComparing(Map.Entry::getKey))
                .limit(n)
                .map(e -> usage(new BucketKey(e.getKey(), res), limit, from.toEpochMilli(), to.toEpochMilli(),
                        e.getValue()))
                .toList();
    }

    private UsageStore usageStore() {
        UsageStore history = store.usage();
        if (history == null) {
            throw new UnsupportedOperationException(store.getClass().getName() + " keeps no usage history");
        }
        if (usage != null) {
            try {
                usage.flush();
            } catch (StoreUnavailableException | ValidationException e) {
                // this process's latest counts are kept for the next flush; read what the store has
            }
        }
        return history;
    }

    /**
     * The start of the first period that starts at or after {@code from}, and {@code to}, in epoch milliseconds.
     *
     * @throws ValidationException when the range is empty, out of the epoch-millisecond range, or spans more than
     *                             {@link RateLimiterAdmin#MAX_USAGE_PERIODS} periods
     */
    private static long[] range(UsageGranularity granularity, Instant from, Instant to) {
        Arguments.required("granularity", granularity);
        long fromMillis = Arguments.epochMillis("from", from);
        long toMillis = Arguments.epochMillis("to", to);
        if (fromMillis >= toMillis) {
            throw new ValidationException("from", from, "a usage range starts before it ends (" + to + ")");
        }
        long period = granularity.millis();
        try {
            long first = Math.multiplyExact(Math.floorDiv(fromMillis, period), period);
            first = first < fromMillis ? Math.addExact(first, period) : first;
            long periods = Math.floorDiv(Math.addExact(Math.subtractExact(toMillis, first), period - 1), period);
            if (periods <= RateLimiterAdmin.MAX_USAGE_PERIODS) {
                return new long[] {first, toMillis};
            }
        } catch (ArithmeticException e) {
            // more periods than a long counts
        }
        throw new ValidationException("to", to, "a usage read spans at most " + RateLimiterAdmin.MAX_USAGE_PERIODS
                + " periods"
                + (granularity == UsageGranularity.HOUR ? "; read days for long ranges" : ""));
    }

    private static Usage usage(BucketKey key, String limitName, long from, long to, UsageCounts counts) {
        return new Usage(key.entityId(), key.resource(), limitName, Instant.ofEpochMilli(from),
                Instant.ofEpochMilli(to), counts.consumedMilli() / Limits.MILLI, counts.admitted(), counts.refused(),
                counts.overdrawn(), counts.bypassedMilli() / Limits.MILLI, counts.degradedMilli() / Limits.MILLI);
    }
}
