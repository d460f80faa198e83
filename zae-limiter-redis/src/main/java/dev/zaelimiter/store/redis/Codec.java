package dev.zaelimiter.store.redis;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimitState;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The text forms of what the store keeps in Redis: limits (one per line, {@code key=value} fields separated by
 * tabs), configuration levels and entity records (hash fields), and bucket states (the instant of the last write,
 * then one line per limit: name, balance, consumption, session start, slot holders, and {@code c} for a concurrency
 * limit). None of the characters used as separators can occur in a limit name, cron, zone id or lease id.
 */
final class Codec {

    static final String LIMITS = "lim";
    static final String DISABLED = "dis";
    static final String CASCADE = "cas";
    static final String PAUSED = "pau";
    /** The field of an entity record that holds its parent. */
    static final String PARENT = "par";

    private static final char ENTRY = '\u001f';

    private Codec() {
    }

    // ---- limits

    static String limits(List<Limit> limits) {
        StringBuilder out = new StringBuilder();
        for (Limit limit : limits) {
            if (out.length() > 0) {
                out.append('\n');
            }
            out.append("n=").append(limit.name()).append("\tc=").append(limit.capacity());
            if (limit.refillAmount() > 0) {
                out.append("\ta=").append(limit.refillAmount()).append("\tp=").append(Limits.refillPeriodMillis(limit));
            }
            if (limit.isSoft()) {
                out.append("\ts=1");
            }
            if (limit.localReservations()) {
                out.append("\tl=1");
            }
            limit.resetSchedule().ifPresent(cron -> out.append("\trc=").append(cron)
                    .append("\trz=").append(limit.zone().orElseThrow().getId()));
            limit.resetAfter().ifPresent(d -> out.append("\tra=").append(d.toMillis()));
            limit.fixedWindow().ifPresent(d -> out.append("\tfw=").append(d.toMillis())
                    .append("\tfo=").append(limit.fixedWindowOrigin().orElseThrow().toEpochMilli()));
            limit.leaseTimeout().ifPresent(d -> out.append("\tlt=").append(d.toMillis()));
            for (ScheduleEntry e : limit.schedule()) {
                out.append("\te=").append(e.cron()).append(ENTRY).append(e.zone().getId()).append(ENTRY);
                if (e.isScaled()) {
                    out.append(Double.toString(e.scale())).append(ENTRY).append(ENTRY).append(ENTRY);
                } else {
                    out.append(ENTRY).append(e.capacity()).append(ENTRY);
                    if (e.refillPeriod() != null) {
                        out.append(e.refillAmount()).append(ENTRY).append(e.refillPeriod().toMillis());
                    } else {
                        out.append(ENTRY);
                    }
                }
            }
        }
        return out.toString();
    }

    static List<Limit> limits(String text) {
        List<Limit> limits = new ArrayList<>();
        if (text.isEmpty()) {
            return List.of();
        }
        for (String line : text.split("\n")) {
            Map<String, String> m = new LinkedHashMap<>();
            List<ScheduleEntry> entries = new ArrayList<>();
            for (String field : line.split("\t")) {
                int eq = field.indexOf('=');
                String key = field.substring(0, eq);
                String value = field.substring(eq + 1);
                if (key.equals("e")) {
                    String[] p = value.split(String.valueOf(ENTRY), -1);
                    entries.add(ScheduleEntry.of(p[0], ZoneId.of(p[1]),
                            p[2].isEmpty() ? null : Double.valueOf(p[2]),
                            p[3].isEmpty() ? null : Long.valueOf(p[3]),
                            p[4].isEmpty() ? null : Long.valueOf(p[4]),
                            p[5].isEmpty() ? null : Duration.ofMillis(Long.parseLong(p[5]))));
                } else {
                    m.put(key, value);
                }
            }
            String name = m.get("n");
            long capacity = Long.parseLong(m.get("c"));
            Limit limit;
            if (m.containsKey("rc")) {
                limit = Limit.quota(name, capacity, m.get("rc"), ZoneId.of(m.get("rz")));
            } else if (m.containsKey("lt")) {
                limit = Limit.concurrency(name, capacity, Duration.ofMillis(Long.parseLong(m.get("lt"))));
            } else if (m.containsKey("ra")) {
                limit = Limit.sessionQuota(name, capacity, Duration.ofMillis(Long.parseLong(m.get("ra"))));
            } else if (m.containsKey("fw")) {
                limit = Limit.fixedWindow(name, capacity, Duration.ofMillis(Long.parseLong(m.get("fw"))),
                        Instant.ofEpochMilli(Long.parseLong(m.get("fo"))));
            } else {
                limit = Limit.custom(name, capacity, Long.parseLong(m.get("a")),
                        Duration.ofMillis(Long.parseLong(m.get("p"))));
            }
            if (!entries.isEmpty()) {
                limit = limit.withSchedule(entries);
            }
            limit = m.containsKey("s") ? limit.soft() : limit;
            limits.add(m.containsKey("l") ? limit.withLocalReservations() : limit);
        }
        return List.copyOf(limits);
    }

    // ---- levels and entities

    /** A level from the fields of its hash (empty: a level that sets nothing). */
    static LevelConfig level(Map<String, String> fields) {
        if (fields == null || fields.isEmpty()) {
            return LevelConfig.EMPTY;
        }
        String limits = fields.get(LIMITS);
        String disabled = fields.get(DISABLED);
        String cascade = fields.get(CASCADE);
        String paused = fields.get(PAUSED);
        return new LevelConfig(limits == null ? null : limits(limits),
                disabled == null ? null : DisabledMode.valueOf(disabled),
                cascade == null ? null : Boolean.valueOf(cascade),
                paused == null ? null : Long.valueOf(paused));
    }

    static Map<String, String> entity(Entity entity) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("id", entity.id());
        if (entity.name() != null) {
            fields.put("nm", entity.name());
        }
        if (entity.parentId() != null) {
            fields.put(PARENT, entity.parentId());
        }
        fields.put("cas", entity.cascade() ? "1" : "0");
        return fields;
    }

    /** The entity of a record's fields, or {@code null} when there is no record. */
    static Entity entity(Map<String, String> fields) {
        if (fields == null || fields.isEmpty()) {
            return null;
        }
        return new Entity(fields.get("id"), fields.get("nm"), fields.get(PARENT), "1".equals(fields.get("cas")));
    }

    /** The fields of a hash that a script returned as a flat list of names and values. */
    static Map<String, String> fields(Object flat) {
        List<?> list = (List<?>) flat;
        Map<String, String> fields = new LinkedHashMap<>(list.size());
        for (int i = 0; i + 1 < list.size(); i += 2) {
            fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
        }
        return fields;
    }

    // ---- buckets

    /** A bucket as stored: its state, and the names of the limits that were concurrency limits when written. */
    record StoredBucket(BucketState state, Set<String> slotLimits) {
    }

    /** The text of {@code state}, written under limits of which those named in {@code slotLimits} hold slots. */
    static String state(BucketState state, Set<String> slotLimits) {
        StringBuilder out = new StringBuilder().append(state.lastRefillMillis());
        for (Map.Entry<String, LimitState> e : state.limits().entrySet()) {
            LimitState s = e.getValue();
            out.append('\n').append(e.getKey()).append('\t').append(s.balanceMilli()).append('\t')
                    .append(s.consumedMilli()).append('\t').append(s.windowStartMillis()).append('\t');
            boolean first = true;
            for (Map.Entry<String, Long> h : s.holders().entrySet()) {
                out.append(first ? "" : ",").append(h.getKey()).append('=').append(h.getValue());
                first = false;
            }
            if (slotLimits.contains(e.getKey())) {
                out.append("\tc");
            }
        }
        return out.toString();
    }

    /** The names of the concurrency limits among {@code limits}. */
    static Set<String> slotLimits(List<Limit> limits) {
        Set<String> names = Set.of();
        for (Limit limit : limits) {
            if (limit.isConcurrency()) {
                names = names.isEmpty() ? new HashSet<>() : names;
                names.add(limit.name());
            }
        }
        return names;
    }

    static StoredBucket state(String text) {
        String[] lines = text.split("\n");
        long at = Long.parseLong(lines[0]);
        Map<String, LimitState> limits = new HashMap<>();
        Set<String> slotLimits = Set.of();
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split("\t", -1);
            if (f.length > 5) {
                slotLimits = slotLimits.isEmpty() ? new HashSet<>() : slotLimits;
                slotLimits.add(f[0]);
            }
            Map<String, Long> holders = new HashMap<>();
            if (!f[4].isEmpty()) {
                for (String h : f[4].split(",")) {
                    int eq = h.indexOf('=');
                    holders.put(h.substring(0, eq), Long.parseLong(h.substring(eq + 1)));
                }
            }
            limits.put(f[0], new LimitState(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                    holders));
        }
        return new StoredBucket(new BucketState(at, limits), slotLimits);
    }
}
