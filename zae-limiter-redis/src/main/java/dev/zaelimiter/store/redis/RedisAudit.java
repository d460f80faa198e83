package dev.zaelimiter.store.redis;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.AuditScope;
import dev.zaelimiter.ValidationException;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The audit log in Redis: one hash per event under its sort key, and the sort keys in sorted sets ordered by key
 * (every score 0): one of every event, and one per system, resource and entity target. A page is a read of the log
 * and one script run that reads its events (two round trips), more only when the query's time range or resource
 * leaves out events of its log. Events expire after their retention (by default two years).
 */
final class RedisAudit implements dev.zaelimiter.store.AuditStore {

    static final Duration DEFAULT_RETENTION = Duration.ofDays(730);

    private static final RedisCalls.Script APPEND = RedisCalls.Script.load("audit-append",
            io.lettuce.core.ScriptOutputType.INTEGER);

    private final RedisCalls redis;
    private final Keys keys;
    private final long retentionMillis;

    /**
     * Checks the retention of audit events as {@link RedisStore.Builder#auditRetention} documents it.
     *
     * @throws ValidationException when under one day or over {@link RedisUsage#MAX_RETENTION}
     */
    static void checkRetention(Duration retention) {
        if (retention == null || retention.compareTo(Duration.ofDays(1)) < 0
                || retention.compareTo(RedisUsage.MAX_RETENTION) > 0) {
            throw new ValidationException("auditRetention", retention, "keep audit events at least one day and at"
                    + " most " + RedisUsage.MAX_RETENTION.toDays() + " days");
        }
    }

    RedisAudit(RedisCalls redis, Keys keys, Duration retention) {
        this.redis = redis;
        this.keys = keys;
        this.retentionMillis = retention.toMillis();
    }

    @Override
    public void append(AuditEvent event) {
        String sortKey = AuditQuery.sortKey(event);
        List<String> logs = new ArrayList<>(List.of(keys.auditEvents() + sortKey, keys.auditAll()));
        if (event.scope() == AuditScope.SYSTEM) {
            logs.add(keys.auditSystem());
        } else if (event.scope() == AuditScope.RESOURCE) {
            logs.add(keys.auditResource(event.resource()));
        } else {
            logs.add(keys.auditEntity(event.entityId()));
        }
        String oldest = String.format("%015d", event.at().toEpochMilli() - retentionMillis);
        List<String> args = new ArrayList<>(List.of(sortKey, Long.toString(retentionMillis), oldest));
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("id", event.id());
        fields.put("at", Long.toString(event.at().toEpochMilli()));
        fields.put("act", event.actor());
        fields.put("ac", event.action());
        putIfSet(fields, "ent", event.entityId());
        putIfSet(fields, "res", event.resource());
        putIfSet(fields, "bf", event.before());
        putIfSet(fields, "af", event.after());
        fields.forEach((field, value) -> {
            args.add(field);
            args.add(value);
        });
        redis.run(APPEND, logs, args);
    }

    private static void putIfSet(Map<String, String> fields, String field, String value) {
        if (value != null) {
            fields.put(field, value);
        }
    }

    @Override
    public AuditPage read(AuditQuery query) {
        String log = switch (query.target()) {
            case ALL -> keys.auditAll();
            case SYSTEM -> keys.auditSystem();
            case RESOURCE -> keys.auditResource(query.resource());
            case ENTITY -> keys.auditEntity(query.entityId());
        };
        int batch = Math.min(AuditQuery.MAX_PAGE_SIZE, query.pageSize() + 1);
        String before = query.cursor();
        List<AuditEvent> page = new ArrayList<>();
        while (true) {
            Range<String> range = Range.from(Range.Boundary.unbounded(), before == null ? Range.Boundary.unbounded()
                    : Range.Boundary.excluding(before));
            List<String> sortKeys = redis.call(r -> r.zrevrangebylex(log, range, Limit.create(0, batch)));
            List<Object> hashes = sortKeys.isEmpty() ? List.of() : redis.run(Configuration.HASHES,
                    sortKeys.stream().map(k -> keys.auditEvents() + k).toList(), List.of());
            for (int i = 0; i < sortKeys.size(); i++) {
                Map<String, String> fields = Codec.fields(hashes.get(i));
                before = sortKeys.get(i);
                if (fields.isEmpty()) {
                    continue;
                }
                AuditEvent event = event(fields);
                if (!query.matches(event)) {
                    continue;
                }
                if (page.size() == query.pageSize()) {
                    return new AuditPage(page, AuditQuery.sortKey(page.get(page.size() - 1)));
                }
                page.add(event);
            }
            if (sortKeys.size() < batch) {
                return new AuditPage(page, null);
            }
        }
    }

    private static AuditEvent event(Map<String, String> f) {
        return new AuditEvent(f.get("id"), Instant.ofEpochMilli(Long.parseLong(f.get("at"))), f.get("act"),
                f.get("ac"), f.get("ent"), f.get("res"), f.get("bf"), f.get("af"));
    }
}
