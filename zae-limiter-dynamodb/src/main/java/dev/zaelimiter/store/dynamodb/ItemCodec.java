package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.internal.algorithm.FullAt;
import dev.zaelimiter.store.LimitState;
import dev.zaelimiter.store.LevelConfig;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between items and the store's values. Attribute names are short so that a bucket of eight limits stays
 * well under 1 KB (one write unit):
 * <pre>
 * bucket:  lr (last refill, ms)  v (version)  cs (config stamp)  dl (deadline, ms)  ttl (s, default-derived only)
 *          ex (life horizon, ms: full from then on, the bucket is new, see BucketLife)
 *          t_{limit} full-at grid point and q_{limit} its parameters (a dripping limit, see FullAt),
 *          b_{limit} balance (any other limit), c_{limit} consumed, w_{limit} session start (milli-tokens, ms),
 *          h_{limit} concurrency slot holders (lease id -> expiry, ms),
 *          r_{id} marker of a correction written exactly once (ms it was written)
 * config:  lim (list of limits: n name, c capacity, a/p refill amount and period (ms), s soft, rc/rz reset cron
 *          and zone, ra session length (ms), fw/fo fixed window and its origin (ms), lt lease timeout (ms),
 *          sc schedule entries)  dis (disabled mode)  cas (cascade policy)  pau (paused until, ms)
 * entity:  id  nm (name)  par (parent)  cas (cascade flag)
 * </pre>
 *
 * <p>Longer than most files on purpose: every item kind (limits, levels, entities, buckets) is coded here, so that
 * the table layout lives in one place.
 */
final class ItemCodec {

    static final String LAST_REFILL = "lr";
    static final String VERSION = "v";
    static final String STAMP = "cs";
    static final String DEADLINE = "dl";
    static final String TTL = "ttl";
    /** The bucket's life horizon (ms, see {@link dev.zaelimiter.store.BucketLife}). */
    static final String ENDS = "ex";
    static final String BALANCE = "b_";
    static final String FULL_AT = "t_";
    static final String PARAMETERS = "q_";
    static final String CONSUMED = "c_";
    static final String WINDOW = "w_";
    static final String HOLDERS = "h_";
    static final String MARKER = "r_";
    /** A reserving limit's total held by processes (milli-tokens), see {@link Holds}. */
    static final String HELD = "u_";
    /** A reserving limit's full-at point plus its held total, kept so that conditions need no arithmetic. */
    static final String HELD_POINT = "s_";
    /** One process's hold of a reserving limit: {@code k_{limit}#{process}} = {@code amount:expiry}. */
    static final String HOLD = "k_";
    static final String LIMITS = "lim";
    static final String DISABLED = "dis";
    static final String CASCADE = "cas";
    static final String PAUSED = "pau";
    static final String ID = "id";
    static final String NAME = "nm";
    static final String PARENT = "par";

    /** The bucket item format; part of every stamp, so that items of an older format take the slow path once. */
    private static final String FORMAT = "bucket-format-2\n";

    private ItemCodec() {
    }

    // ---- limits

    static AttributeValue limits(List<Limit> limits) {
        List<AttributeValue> list = new ArrayList<>(limits.size());
        for (Limit limit : limits) {
            Map<String, AttributeValue> m = new LinkedHashMap<>();
            m.put("n", AttributeValue.fromS(limit.name()));
            m.put("c", number(limit.capacity()));
            if (limit.refillAmount() > 0) {
                m.put("a", number(limit.refillAmount()));
                m.put("p", number(Limits.refillPeriodMillis(limit)));
            }
            if (limit.isSoft()) {
                m.put("s", AttributeValue.fromBool(true));
            }
            if (limit.localReservations()) {
                m.put("lres", AttributeValue.fromBool(true));
            }
            limit.resetSchedule().ifPresent(cron -> {
                m.put("rc", AttributeValue.fromS(cron));
                m.put("rz", AttributeValue.fromS(limit.zone().orElseThrow().getId()));
            });
            limit.resetAfter().ifPresent(d -> m.put("ra", number(d.toMillis())));
            limit.fixedWindow().ifPresent(d -> {
                m.put("fw", number(d.toMillis()));
                long origin = limit.fixedWindowOrigin().orElseThrow().toEpochMilli();
                if (origin != 0) {
                    m.put("fo", number(origin));
                }
            });
            limit.leaseTimeout().ifPresent(d -> m.put("lt", number(d.toMillis())));
            if (!limit.schedule().isEmpty()) {
                List<AttributeValue> entries = new ArrayList<>();
                for (ScheduleEntry e : limit.schedule()) {
                    Map<String, AttributeValue> em = new LinkedHashMap<>();
                    em.put("cr", AttributeValue.fromS(e.cron()));
                    em.put("z", AttributeValue.fromS(e.zone().getId()));
                    if (e.isScaled()) {
                        em.put("x", AttributeValue.fromN(Double.toString(e.scale())));
                    } else {
                        em.put("c", number(e.capacity()));
                        if (e.refillPeriod() != null) {
                            em.put("a", number(e.refillAmount()));
                            em.put("p", number(e.refillPeriod().toMillis()));
                        }
                    }
                    entries.add(AttributeValue.fromM(em));
                }
                m.put("sc", AttributeValue.fromL(entries));
            }
            list.add(AttributeValue.fromM(m));
        }
        return AttributeValue.fromL(list);
    }

    static List<Limit> limits(AttributeValue value) {
        List<Limit> limits = new ArrayList<>();
        for (AttributeValue item : value.l()) {
            Map<String, AttributeValue> m = item.m();
            String name = m.get("n").s();
            long capacity = longOf(m.get("c"));
            Limit limit;
            if (m.containsKey("rc")) {
                limit = Limit.quota(name, capacity, m.get("rc").s(), ZoneId.of(m.get("rz").s()));
            } else if (m.containsKey("lt")) {
                limit = Limit.concurrency(name, capacity, Duration.ofMillis(longOf(m.get("lt"))));
            } else if (m.containsKey("ra")) {
                limit = Limit.sessionQuota(name, capacity, Duration.ofMillis(longOf(m.get("ra"))));
            } else if (m.containsKey("fw")) {
                limit = Limit.fixedWindow(name, capacity, Duration.ofMillis(longOf(m.get("fw"))),
                        Instant.ofEpochMilli(m.containsKey("fo") ? longOf(m.get("fo")) : 0));
            } else {
                limit = Limit.custom(name, capacity, longOf(m.get("a")), Duration.ofMillis(longOf(m.get("p"))));
            }
            if (m.containsKey("sc")) {
                List<ScheduleEntry> entries = new ArrayList<>();
                for (AttributeValue ev : m.get("sc").l()) {
                    Map<String, AttributeValue> em = ev.m();
                    entries.add(ScheduleEntry.of(em.get("cr").s(), ZoneId.of(em.get("z").s()),
                            em.containsKey("x") ? Double.valueOf(em.get("x").n()) : null,
                            em.containsKey("c") ? longOf(em.get("c")) : null,
                            em.containsKey("a") ? longOf(em.get("a")) : null,
                            em.containsKey("p") ? Duration.ofMillis(longOf(em.get("p"))) : null));
                }
                limit = limit.withSchedule(entries);
            }
            limit = m.containsKey("s") && m.get("s").bool() ? limit.soft() : limit;
            limits.add(m.containsKey("lres") && m.get("lres").bool() ? limit.withLocalReservations() : limit);
        }
        return List.copyOf(limits);
    }

    /** A short digest of a limit list, equal for equal lists in every process. */
    static String stamp(List<Limit> limits) {
        StringBuilder canonical = new StringBuilder(FORMAT);
        for (Limit limit : limits) {
            canonical.append(limit).append('\n');
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    // ---- configuration levels and entities

    static LevelConfig level(Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return LevelConfig.EMPTY;
        }
        return new LevelConfig(
                item.containsKey(LIMITS) ? limits(item.get(LIMITS)) : null,
                item.containsKey(DISABLED) ? DisabledMode.valueOf(item.get(DISABLED).s()) : null,
                item.containsKey(CASCADE) ? item.get(CASCADE).bool() : null,
                item.containsKey(PAUSED) ? longOf(item.get(PAUSED)) : null);
    }

    static Entity entity(Map<String, AttributeValue> item) {
        if (item == null || item.isEmpty()) {
            return null;
        }
        return new Entity(item.get(ID).s(),
                item.containsKey(NAME) ? item.get(NAME).s() : null,
                item.containsKey(PARENT) ? item.get(PARENT).s() : null,
                item.containsKey(CASCADE) && item.get(CASCADE).bool());
    }

    static Map<String, AttributeValue> entityItem(Keys keys, Entity entity) {
        Map<String, AttributeValue> item = new HashMap<>(keys.entity(entity.id()));
        item.put(ID, AttributeValue.fromS(entity.id()));
        if (entity.name() != null) {
            item.put(NAME, AttributeValue.fromS(entity.name()));
        }
        if (entity.parentId() != null) {
            item.put(PARENT, AttributeValue.fromS(entity.parentId()));
            item.put(Keys.GSI1PK, AttributeValue.fromS(keys.parentIndexPk(entity.parentId())));
            item.put(Keys.GSI1SK, AttributeValue.fromS(entity.id()));
        }
        item.put(CASCADE, AttributeValue.fromBool(entity.cascade()));
        return item;
    }

    // ---- buckets

    /** The configuration stamp an item was written under, or {@code null}. */
    static String stampOf(Map<String, AttributeValue> item) {
        AttributeValue stamp = item.get(STAMP);
        return stamp == null ? null : stamp.s();
    }

    /**
     * The bucket in {@code item} as the algorithm sees it, at the instant of its last write ({@code lr}, which every
     * write sets): a dripping limit is stored as the grid point at which it is full ({@link FullAt}) with the
     * parameters that grid uses, and is turned into the balance it had then. Refilling that state to a later instant
     * under the limits in force then follows the same rule as a stored balance would: unchanged parameters give the
     * balance the full-at point gives, changed ones refill the whole time since the last write at the new rate, and
     * an earlier instant (a clock behind the last write) refills nothing.
     */
    static BucketState bucket(Map<String, AttributeValue> item) {
        long at = lastWrite(item);
        Map<String, Long> balances = new HashMap<>();
        Map<String, Long> consumed = new HashMap<>();
        Map<String, Long> windows = new HashMap<>();
        Map<String, Map<String, Long>> holders = new HashMap<>();
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            String attribute = e.getKey();
            if (attribute.startsWith(BALANCE)) {
                balances.put(attribute.substring(2), longOf(e.getValue()));
            } else if (attribute.startsWith(PARAMETERS) && !item.containsKey(FULL_AT + attribute.substring(2))) {
                balances.put(attribute.substring(2), parameters(e.getValue(), attribute).capacityMilli());
            } else if (attribute.startsWith(FULL_AT)) {
                String name = attribute.substring(2);
                Limits.Parameters p = parameters(item.get(PARAMETERS + name), attribute);
                AttributeValue held = item.get(HELD + name);
                balances.put(name, held == null ? FullAt.balance(bigOf(e.getValue()), at, p)
                        : Holds.available(bigOf(e.getValue()), bigOf(held), at, p));
            } else if (attribute.startsWith(CONSUMED)) {
                consumed.put(attribute.substring(2), longOf(e.getValue()));
            } else if (attribute.startsWith(WINDOW)) {
                windows.put(attribute.substring(2), longOf(e.getValue()));
            } else if (attribute.startsWith(HOLDERS)) {
                Map<String, Long> slots = new HashMap<>();
                e.getValue().m().forEach((lease, expiry) -> slots.put(lease, longOf(expiry)));
                holders.put(attribute.substring(2), slots);
                balances.putIfAbsent(attribute.substring(2), 0L);
            }
        }
        Map<String, LimitState> states = new HashMap<>();
        for (Map.Entry<String, Long> e : balances.entrySet()) {
            states.put(e.getKey(), new LimitState(e.getValue(), consumed.getOrDefault(e.getKey(), 0L),
                    windows.getOrDefault(e.getKey(), LimitState.NO_WINDOW),
                    holders.getOrDefault(e.getKey(), Map.of())));
        }
        return new BucketState(at, states);
    }

    /** The instant of the item's last write. */
    static long lastWrite(Map<String, AttributeValue> item) {
        return item.containsKey(LAST_REFILL) ? longOf(item.get(LAST_REFILL)) : 0;
    }

    /**
     * Writes {@code state} into {@code item}: a limit that drips at the state's instant as its full-at point and
     * parameters, any other as a balance; a concurrency limit of {@code limits} always gets its holders map.
     */
    static void putBucket(Map<String, AttributeValue> item, BucketState state, List<Limit> limits) {
        long at = state.lastRefillMillis();
        item.put(LAST_REFILL, number(at));
        for (Map.Entry<String, LimitState> e : state.limits().entrySet()) {
            LimitState s = e.getValue();
            Limit limit = find(e.getKey(), limits);
            Limits.Parameters p = limit == null ? null : Limits.parametersAt(limit, at);
            if (p != null && p.drips() && !limit.isConcurrency()) {
                item.put(FULL_AT + e.getKey(), number(FullAt.of(s.balanceMilli(), at, p)));
                item.put(PARAMETERS + e.getKey(), parameters(p));
            } else {
                item.put(BALANCE + e.getKey(), number(s.balanceMilli()));
            }
            item.put(CONSUMED + e.getKey(), number(s.consumedMilli()));
            if (s.inWindow()) {
                item.put(WINDOW + e.getKey(), number(s.windowStartMillis()));
            }
            if (!s.holders().isEmpty() || (limit != null && limit.isConcurrency())) {
                Map<String, AttributeValue> slots = new HashMap<>();
                s.holders().forEach((lease, expiry) -> slots.put(lease, number(expiry)));
                item.put(HOLDERS + e.getKey(), AttributeValue.fromM(slots));
            }
        }
    }

    private static Limit find(String name, List<Limit> limits) {
        for (Limit limit : limits) {
            if (limit.name().equals(name)) {
                return limit;
            }
        }
        return null;
    }

    /** The parameters a full-at point is measured in, as one string attribute. */
    static AttributeValue parameters(Limits.Parameters p) {
        return AttributeValue.fromS(p.capacityMilli() + ":" + p.refillAmountMilli() + ":" + p.refillPeriodMillis());
    }

    static Limits.Parameters parameters(AttributeValue value, String attribute) {
        String[] parts = value == null || value.s() == null ? new String[0] : value.s().split(":");
        try {
            if (parts.length == 3) {
                Limits.Parameters p = new Limits.Parameters(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                        Long.parseLong(parts[2]));
                if (p.capacityMilli() > 0 && p.refillAmountMilli() > 0 && p.refillPeriodMillis() > 0) {
                    return p;
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new CorruptStateException("attribute " + attribute + " has no valid parameters");
    }

    static long version(Map<String, AttributeValue> item) {
        AttributeValue v = item == null ? null : item.get(VERSION);
        return v == null ? 0 : longOf(v);
    }

    static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    static AttributeValue number(BigInteger value) {
        return AttributeValue.fromN(value.toString());
    }

    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);

    /**
     * The number in {@code value}, rounded down to an integer and saturated to the {@code long} range, as the
     * in-memory store saturates: DynamoDB's {@code ADD} keeps up to 38 digits, so a balance or counter may be stored
     * past what a {@code long} holds, and it then reads as {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE}.
     *
     * @throws CorruptStateException when {@code value} is missing, not a number attribute, or not a number
     */
    static long longOf(AttributeValue value) {
        String n = value == null ? null : value.n();
        if (n == null) {
            throw new CorruptStateException("a numeric attribute holds " + (value == null ? "nothing"
                    : "a value of another type: " + abbreviate(value.toString())));
        }
        if (isShortInteger(n)) {
            return Long.parseLong(n);
        }
        BigDecimal number;
        try {
            number = new BigDecimal(n);
        } catch (NumberFormatException e) {
            throw new CorruptStateException("a numeric attribute holds '" + abbreviate(n) + "', not a number", e);
        }
        if (number.compareTo(LONG_MAX) >= 0) {
            return Long.MAX_VALUE;
        }
        if (number.compareTo(LONG_MIN) <= 0) {
            return Long.MIN_VALUE;
        }
        if (number.abs().compareTo(BigDecimal.ONE) < 0) {
            return number.signum() < 0 ? -1 : 0;
        }
        return number.setScale(0, RoundingMode.FLOOR).longValue();
    }

    /** Whether {@code n} is an optional minus and 1 to 18 digits, which {@link Long#parseLong} reads exactly. */
    private static boolean isShortInteger(String n) {
        int start = n.startsWith("-") ? 1 : 0;
        int digits = n.length() - start;
        if (digits < 1 || digits > 18) {
            return false;
        }
        for (int i = start; i < n.length(); i++) {
            char c = n.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "... (" + text.length() + " chars)";
    }

    /** A number attribute of any size, rounded down to an integer (a full-at point may exceed the long range). */
    static BigInteger bigOf(AttributeValue value) {
        String n = value == null ? null : value.n();
        if (n == null) {
            throw new CorruptStateException("a full-at attribute holds " + (value == null ? "nothing"
                    : "a value of another type: " + abbreviate(value.toString())));
        }
        try {
            return new BigDecimal(n).setScale(0, RoundingMode.FLOOR).toBigIntegerExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CorruptStateException("a full-at attribute holds '" + abbreviate(n) + "', not a number", e);
        }
    }
}
