package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.internal.algorithm.FullAt;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.store.LimitState;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How a limit {@linkplain Limit#withLocalReservations() that reserves} is stored, so that tokens held by processes
 * never let the bucket admit more than an exact bucket would.
 *
 * <p>The item keeps, per reserving limit: {@code t_} the full-at point of the whole bucket, <em>counting held tokens
 * as still in it</em>; {@code u_} the held total {@code H}; {@code s_ = t_ + u_} (so that a condition can compare
 * their sum without arithmetic); and one {@code k_{limit}#{process}} attribute per holder ({@code amount:expiry}).
 * What other calls can take is {@code S = capacity - H - max(0, t_ - grid(now))}: the bucket refills, but never above
 * the capacity less what is held. A token is counted when a process hands it out; the process retires the tokens it
 * handed out (debits {@code t_}, lowers {@code H}) and returns the unused ones (lowers {@code H}) in its next write.
 * Invariant: the exact bucket of the hand-outs holds at least {@code S} plus every process's unused tokens, so nothing
 * is ever created. A hold whose expiry is more than {@link #GRACE_MILLIS} past is dropped by any writer as spent.
 */
final class Holds {

    /** How long after its expiry a hold is dropped by other writers (allowance for clock skew). */
    static final long GRACE_MILLIS = 1_000;

    private Holds() {
    }

    /**
     * What one process's write does to its hold of a reserving limit besides the call's own amount: retire
     * {@code used} milli-tokens it handed out, return {@code returned} unused ones, take {@code taken} new ones;
     * the hold attribute must still read {@code oldEntry} ({@code null}: absent) and becomes {@code newEntry}
     * ({@code null}: removed). It moves only the hold of {@code limit}, whatever other limits reserve.
     */
    record Exchange(String limit, String attribute, String oldEntry, long used, long returned, long taken, String newEntry) {
    }

    /** One process's hold: milli-tokens held (unused or handed out and not yet retired) and until when (epoch ms). */
    record Hold(long amount, long expiry) {

        /** A hold as stored; a value in another form is a {@link CorruptStateException}. */
        static Hold parse(String value) {
            int colon = value.indexOf(':');
            try {
                return new Hold(Long.parseLong(value.substring(0, colon)),
                        Long.parseLong(value.substring(colon + 1)));
            } catch (RuntimeException e) {
                throw new CorruptStateException("a hold attribute holds '" + value + "', not amount:expiry", e);
            }
        }

        String value() {
            return amount + ":" + expiry;
        }

        boolean droppable(long now) {
            return expiry <= now - GRACE_MILLIS;
        }
    }

    static String attribute(String limit, String process) {
        return ItemCodec.HOLD + limit + "#" + process;
    }

    /** The held total of {@code limit} in {@code item}; 0 when none. */
    static long held(Map<String, AttributeValue> item, String limit) {
        AttributeValue held = item == null ? null : item.get(ItemCodec.HELD + limit);
        return held == null || held.n() == null ? 0 : ItemCodec.longOf(held);
    }

    /** Whether the whole bucket (held tokens counted in) is full at {@code now}: the update then starts from now. */
    static boolean full(Map<String, AttributeValue> item, String limit, Limits.Parameters p, long now) {
        AttributeValue fullAt = item == null ? null : item.get(ItemCodec.FULL_AT + limit);
        return fullAt == null || ItemCodec.bigOf(fullAt).compareTo(FullAt.grid(now, p)) <= 0;
    }

    /** The holds of {@code limit} in {@code item}, by process. */
    static Map<String, Hold> of(Map<String, AttributeValue> item, String limit) {
        Map<String, Hold> holds = new HashMap<>();
        if (item == null) {
            return holds;
        }
        String prefix = ItemCodec.HOLD + limit + "#";
        item.forEach((name, value) -> {
            if (name.startsWith(prefix) && value.s() != null) {
                holds.put(name.substring(prefix.length()), Hold.parse(value.s()));
            }
        });
        return holds;
    }

    /** The value of this process's hold in {@code item}, or {@code null}. */
    static String entry(Map<String, AttributeValue> item, String limit, String process) {
        AttributeValue value = item == null ? null : item.get(attribute(limit, process));
        return value == null ? null : value.s();
    }

    /** Whether some reserving limit of {@code limits} in {@code item} has a hold that any writer should drop. */
    static boolean droppable(Map<String, AttributeValue> item, List<Limit> limits, long now) {
        for (Limit limit : limits) {
            if (limit.localReservations()) {
                for (Hold hold : of(item, limit.name()).values()) {
                    if (hold.droppable(now)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * {@code state} read from {@code item} and refilled, with every reserving limit capped at what the item says
     * others can take at {@code now} (the refill of a {@link BucketState} does not know the cap of held tokens).
     */
    static BucketState capped(BucketState state, Map<String, AttributeValue> item, List<Limit> limits, long now) {
        Map<String, LimitState> capped = null;
        for (Limit limit : limits) {
            LimitState s = state.limits().get(limit.name());
            if (!limit.localReservations() || !item.containsKey(ItemCodec.HELD + limit.name())
                    || !item.containsKey(ItemCodec.FULL_AT + limit.name()) || s == null) {
                continue;
            }
            long exact = available(item, limit, now);
            if (exact < s.balanceMilli()) {
                if (capped == null) {
                    capped = new HashMap<>(state.limits());
                }
                capped.put(limit.name(), new LimitState(exact, s.consumedMilli(), s.windowStartMillis(),
                        s.holders()));
            }
        }
        return capped == null ? state : new BucketState(state.lastRefillMillis(), capped);
    }

    /**
     * What others can take of {@code limit} at {@code now} (not before the item's last write). Under the parameters
     * the item is stored in, that is {@link ItemCodec#available}; under
     * others (a configuration or schedule change since), the whole bucket as it was at the last write is refilled
     * since then at the rate in force, up to the capacity in force, and the held total is taken from it: a lowered
     * capacity binds on held tokens at once.
     */
    static long available(Map<String, AttributeValue> item, Limit limit, long now) {
        String name = limit.name();
        BigInteger fullAt = ItemCodec.bigOf(item.get(ItemCodec.FULL_AT + name));
        BigInteger held = ItemCodec.bigOf(item.get(ItemCodec.HELD + name));
        Limits.Parameters stored = ItemCodec.parameters(item.get(ItemCodec.PARAMETERS + name),
                ItemCodec.PARAMETERS + name);
        long written = ItemCodec.lastWrite(item);
        long at = Math.max(now, written);
        Limits.Parameters p = Limits.parametersAt(limit, at);
        if (p.equals(stored)) {
            return ItemCodec.available(fullAt, held, at, p);
        }
        long whole = BucketMath.refill(FullAt.balance(fullAt, written, stored), p.capacityMilli(),
                p.refillAmountMilli(), p.refillPeriodMillis(), written, at);
        BigInteger available = BigInteger.valueOf(whole).subtract(held);
        if (available.bitLength() > 63) {
            return available.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return available.longValue();
    }

    /**
     * A copy of {@code item} in which {@code process} has retired {@code used} milli-tokens of its hold of
     * {@code limit} (spent: the whole bucket loses them, from its last write on) and returned {@code returned}
     * unused ones; its hold entry keeps the rest, or goes. {@code item} itself when the process holds nothing.
     */
    static Map<String, AttributeValue> settled(Map<String, AttributeValue> item, String limit, String process,
            long used, long returned) {
        String attribute = attribute(limit, process);
        AttributeValue entry = item.get(attribute);
        AttributeValue fullAt = item.get(ItemCodec.FULL_AT + limit);
        if (entry == null || entry.s() == null || fullAt == null || used + returned == 0) {
            return item;
        }
        Hold hold = Hold.parse(entry.s());
        Limits.Parameters stored = ItemCodec.parameters(item.get(ItemCodec.PARAMETERS + limit),
                ItemCodec.PARAMETERS + limit);
        Map<String, AttributeValue> copy = new HashMap<>(item);
        BigInteger point = ItemCodec.bigOf(fullAt).max(FullAt.grid(ItemCodec.lastWrite(item), stored))
                .add(BigInteger.valueOf(used));
        long left = hold.amount() - used - returned;
        copy.put(ItemCodec.FULL_AT + limit, ItemCodec.number(point));
        copy.put(ItemCodec.HELD + limit, ItemCodec.number(held(item, limit) - used - returned));
        if (left > 0) {
            copy.put(attribute, AttributeValue.fromS(new Hold(left, hold.expiry()).value()));
        } else {
            copy.remove(attribute);
        }
        return copy;
    }

    /**
     * Writes the reserving limits of a whole rewrite: the holds of {@code previous} that no writer may drop yet are
     * kept (a dropped one counts as spent: what others can take is unchanged), and the bucket's point is set so that
     * others can take what {@code state} says.
     */
    static void put(Map<String, AttributeValue> item, BucketState state, List<Limit> limits,
            Map<String, AttributeValue> previous, long now) {
        long at = state.lastRefillMillis();
        for (Limit limit : limits) {
            LimitState s = state.limits().get(limit.name());
            if (!limit.localReservations() || s == null) {
                continue;
            }
            long held = 0;
            for (Map.Entry<String, Hold> e : of(previous, limit.name()).entrySet()) {
                if (!e.getValue().droppable(now)) {
                    held += e.getValue().amount();
                    item.put(attribute(limit.name(), e.getKey()), AttributeValue.fromS(e.getValue().value()));
                }
            }
            Limits.Parameters p = Limits.parametersAt(limit, at);
            long whole = s.balanceMilli() > Long.MAX_VALUE - held ? Long.MAX_VALUE : s.balanceMilli() + held;
            BigInteger fullAt = FullAt.of(whole, at, p);
            item.put(ItemCodec.FULL_AT + limit.name(), ItemCodec.number(fullAt));
            item.put(ItemCodec.HELD + limit.name(), ItemCodec.number(held));
            item.put(ItemCodec.HELD_POINT + limit.name(), ItemCodec.number(fullAt.add(BigInteger.valueOf(held))));
        }
    }
}
