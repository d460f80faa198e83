package dev.zaelimiter.store.redis;

import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.UsageCounts;
import dev.zaelimiter.store.UsagePeriod;
import dev.zaelimiter.store.UsageStore;
import dev.zaelimiter.store.UsageWrite;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Usage history in Redis: one hash per bucket and period ({@code {start}#{resource}#{entity}}), indexed by start in
 * one sorted set per resource and one per entity, so that a read is a read of one index and one script run that
 * reads its periods. A write adds its counts once per writer and sequence, in one script run. Periods expire after
 * their retention (by default hours 90 days, days 730), counted from each write.
 */
final class RedisUsage implements UsageStore {

    static final Duration DEFAULT_HOUR_RETENTION = Duration.ofDays(90);
    static final Duration DEFAULT_DAY_RETENTION = Duration.ofDays(730);
    /** The longest retention of anything the store keeps: a century, as {@link dev.zaelimiter.Limit#MAX_PERIOD}. */
    static final Duration MAX_RETENTION = dev.zaelimiter.Limit.MAX_PERIOD;

    private static final RedisCalls.Script ADD = RedisCalls.Script.load("usage-add",
            io.lettuce.core.ScriptOutputType.INTEGER);

    private final RedisCalls redis;
    private final Keys keys;
    private final long hourRetentionMillis;
    private final long dayRetentionMillis;

    /**
     * Checks the retention of hour and day periods as {@link RedisStore.Builder#usageRetention} documents it.
     *
     * @throws ValidationException when either is under one day or over {@link #MAX_RETENTION}, or hours are kept
     *                             longer than days
     */
    static void checkRetention(Duration hours, Duration days) {
        if (hours == null || hours.compareTo(Duration.ofDays(1)) < 0 || hours.compareTo(MAX_RETENTION) > 0) {
            throw new ValidationException("usageRetention.hours", hours, "keep hours at least one day and at most "
                    + MAX_RETENTION.toDays() + " days");
        }
        if (days == null || days.compareTo(hours) < 0 || days.compareTo(MAX_RETENTION) > 0) {
            throw new ValidationException("usageRetention.days", days, "keep days at least as long as hours ("
                    + hours + ") and at most " + MAX_RETENTION.toDays() + " days");
        }
    }

    RedisUsage(RedisCalls redis, Keys keys, Duration hourRetention, Duration dayRetention) {
        this.redis = redis;
        this.keys = keys;
        this.hourRetentionMillis = hourRetention.toMillis();
        this.dayRetentionMillis = dayRetention.toMillis();
    }

    @Override
    public boolean add(UsageWrite write) {
        UsagePeriod period = write.period();
        String g = code(period.granularity());
        BucketKey key = period.key();
        String name = period.startMillis() + "#" + key.resource() + "#" + key.entityId();
        long retention = period.granularity() == UsageGranularity.HOUR ? hourRetentionMillis : dayRetentionMillis;
        List<String> args = new ArrayList<>(List.of("w#" + write.writerId(), Long.toString(write.sequence()),
                Long.toString(period.startMillis()), name, Long.toString(retention),
                Long.toString(period.startMillis() - retention)));
        period.limits().forEach((limit, c) -> {
            add(args, "c#" + limit, c.consumedMilli());
            add(args, "a#" + limit, c.admitted());
            add(args, "r#" + limit, c.refused());
            add(args, "o#" + limit, c.overdrawn());
            add(args, "b#" + limit, c.bypassedMilli());
            add(args, "d#" + limit, c.degradedMilli());
        });
        long added = redis.run(ADD, List.of(keys.usagePeriods(g) + name, keys.usageOfResource(g, key.resource()),
                keys.usageOfEntity(g, key.entityId())), args);
        return added == 1;
    }

    private static void add(List<String> args, String field, long amount) {
        args.add(field);
        args.add(Long.toString(amount));
    }

    @Override
    public List<UsagePeriod> entityUsage(String entityId, String resource, UsageGranularity granularity,
            long fromMillis, long toMillis) {
        String g = code(granularity);
        String index = resource == null ? keys.usageOfEntity(g, entityId) : keys.usageOfResource(g, resource);
        List<UsagePeriod> periods = read(index, granularity, fromMillis, toMillis);
        periods.removeIf(p -> !p.key().entityId().equals(entityId));
        return periods;
    }

    @Override
    public List<UsagePeriod> resourceUsage(String resource, UsageGranularity granularity, long fromMillis,
            long toMillis) {
        return read(keys.usageOfResource(code(granularity), resource), granularity, fromMillis, toMillis);
    }

    private List<UsagePeriod> read(String index, UsageGranularity granularity, long fromMillis, long toMillis) {
        List<String> names = redis.call(r -> r.zrangebyscore(index, io.lettuce.core.Range.from(
                io.lettuce.core.Range.Boundary.including(fromMillis), io.lettuce.core.Range.Boundary.excluding(
                        toMillis))));
        List<UsagePeriod> periods = new ArrayList<>();
        if (names.isEmpty()) {
            return periods;
        }
        String prefix = keys.usagePeriods(code(granularity));
        List<Object> hashes = redis.run(Configuration.HASHES, names.stream().map(n -> prefix + n).toList(),
                List.of());
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            Map<String, String> fields = Codec.fields(hashes.get(i));
            if (fields.isEmpty()) {
                continue;
            }
            int first = name.indexOf('#');
            int second = name.indexOf('#', first + 1);
            BucketKey key = new BucketKey(name.substring(second + 1), name.substring(first + 1, second));
            periods.add(new UsagePeriod(key, granularity, Long.parseLong(name.substring(0, first)), counts(fields)));
        }
        return periods;
    }

    private static Map<String, UsageCounts> counts(Map<String, String> fields) {
        Map<String, long[]> byLimit = new HashMap<>();
        fields.forEach((field, value) -> {
            int at = "carobd".indexOf(field.charAt(0));
            if (at >= 0 && field.charAt(1) == '#') {
                byLimit.computeIfAbsent(field.substring(2), l -> new long[6])[at] = Long.parseLong(value);
            }
        });
        Map<String, UsageCounts> counts = new HashMap<>();
        byLimit.forEach((limit, c) -> counts.put(limit, new UsageCounts(c[0], c[1], c[2], c[3], c[4], c[5])));
        return counts;
    }

    private static String code(UsageGranularity granularity) {
        return granularity == UsageGranularity.HOUR ? "H" : "D";
    }
}
