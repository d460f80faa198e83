package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketLife;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The decide mode of {@code bucket.lua}: the script refills, checks and debits every bucket of a call from the state
 * it holds, with parameters computed here from the limits in force (each limit's capacity, its refill reduced to
 * lowest terms, its next reset, what its expiry counts), so that two processes on a busy bucket never make each
 * other go round again, and the rules stay those of {@code BucketState}. It serves the limits whose rules that
 * arithmetic expresses: dripping limits (scheduled ones too: the refill of the whole time since the last write is at
 * the rate in force now) and calendar quotas or fixed windows until their next reset, hard or soft, count-only or
 * not; calls with a session quota, a concurrency limit or a per-call override, and every number sent at or beyond
 * 2<sup>52</sup>, are decided by a conditional write of what {@code BucketState} computed (the write mode). A bucket
 * last written later than the call's instant is decided at that write, as {@code BucketState} does, where the limits
 * have the same parameters, resets and horizon rule at both instants ({@link #ahead}).
 */
final class ServerDecision {

    /** An acquisition: hard limits are checked. */
    static final String ACQUIRE = "a";
    /** An adjustment or rollback: never refused, a refund never lifts a balance above the capacity. */
    static final String ADJUST = "j";

    /** The bound below which every number sent stays, so that sums the script makes stay below 2^53. */
    private static final long SAFE = 1L << 52;
    /** The format of a bucket's state; part of every stamp, so that a bucket of an older format is rewritten once. */
    private static final String FORMAT = "redis-bucket-2\n";
    private static final int MAX_STAMPS = 10_000;
    /** How far past the call's instant a bucket's last write may be for the script to decide at that write. */
    private static final long AHEAD_MILLIS = 3_600_000L;

    private final ConcurrentHashMap<List<Limit>, String> stamps = new ConcurrentHashMap<>();

    /** Whether the script can decide every one of {@code debits} at {@code now}. */
    static boolean applies(List<BucketDebit> debits, long now) {
        if (now < 0 || !safe(now + AHEAD_MILLIS)) {
            return false;
        }
        for (BucketDebit debit : debits) {
            if (debit.overridden()) {
                return false;
            }
            for (Limit limit : debit.limits()) {
                if (limit.isConcurrency() || limit.resetAfter().isPresent()
                        || !safe(debit.amountsMilli().getOrDefault(limit.name(), 0L))) {
                    return false;
                }
                Limits.Parameters p = Limits.parametersAt(limit, now);
                if (!safe(p.capacityMilli()) || !safe(p.refillPeriodMillis())) {
                    return false;
                }
                if (p.drips() && (!safe(p.refillAmountMilli())
                        || !limit.schedule().isEmpty() && !safe(Expiry.fill(limit)))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean safe(Expiry.Fill fill) {
        return safe(fill.capacityMilli()) && safe(fill.amountMilli()) && safe(fill.periodMillis());
    }

    private static boolean safe(long value) {
        return value < SAFE && value > -SAFE;
    }

    /**
     * Whether this process knows one of the buckets to be outside what the script decides: written under other
     * limits, past its deadline, or later than {@code now} by more than {@link #ahead} allows.
     */
    boolean outdated(List<BucketDebit> debits, KnownBucket[] known, long now) {
        for (int i = 0; i < known.length; i++) {
            KnownBucket k = known[i];
            List<Limit> limits = debits.get(i).limits();
            long last = k.state() == null ? now : k.state().lastRefillMillis();
            if (k.state() != null && (!k.stamp().equals(stamp(limits)) || k.deadline() <= Math.max(now, last)
                    || last > now && last >= ahead(limits, now).until())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Adds the arguments of {@code debit} in decide mode ({@link #ACQUIRE} or {@link #ADJUST}), written with
     * {@code token} if it is written.
     */
    void arguments(List<String> args, BucketDebit debit, String token, String mode, long now) {
        List<Limit> limits = debit.limits();
        args.add(token);
        args.add(stamp(limits));
        args.add(Long.toString(BucketLife.endsAfter(limits, now)));
        args.add(text(deadline(limits, now)));
        Ahead ahead = ahead(limits, now);
        args.add(Long.toString(ahead.until()));
        args.add(ahead.slides() ? "1" : "");
        args.add(mode);
        args.add(debit.countOnly() ? "1" : "");
        args.add(Integer.toString(limits.size()));
        for (Limit limit : limits) {
            Limits.Parameters p = Limits.parametersAt(limit, now);
            args.add(limit.name());
            args.add(Long.toString(p.capacityMilli()));
            args.add(Long.toString(debit.amountsMilli().getOrDefault(limit.name(), 0L)));
            args.add(limit.isSoft() ? "" : "h");
            if (p.drips()) {
                long gcd = gcd(p.refillAmountMilli(), p.refillPeriodMillis());
                args.add(Long.toString(p.refillAmountMilli() / gcd));
                args.add(Long.toString(p.refillPeriodMillis() / gcd));
                if (limit.schedule().isEmpty()) {
                    args.add("");                        // it fills to its capacity at its refill
                } else {
                    Expiry.Fill fill = Expiry.fill(limit);
                    args.add(Long.toString(fill.capacityMilli()));
                    args.add(Long.toString(fill.amountMilli()));
                    args.add(Long.toString(fill.periodMillis()));
                    args.add(Long.toString(fill.extraMillis()));
                }
            } else {
                long reset = Limits.nextResetAfter(limit, now);
                args.add("0");
                args.add("0");
                args.add(reset == Limits.NEVER ? "0" : Long.toString(reset));
            }
        }
    }

    /**
     * How a call at {@code now} on a bucket last written at a later instant {@code w} is decided at {@code w}: for
     * every {@code w} before {@code until}, the limits have the parameters and next resets they have at {@code now},
     * and the horizon of a write at {@code w} is that of a write at {@code now} moved by {@code w - now}
     * ({@code slides}) or the same. {@code until} is {@code now + 1} (never later) where neither holds.
     */
    record Ahead(long until, boolean slides) {
    }

    /** The {@link Ahead} of {@code limits} at {@code now}. */
    static Ahead ahead(List<Limit> limits, long now) {
        long until = Math.min(now + AHEAD_MILLIS, deadline(limits, now));
        for (Limit limit : limits) {
            until = Math.min(until, Limits.nextChangeAfter(limit, now));
        }
        long ends = BucketLife.endsAfter(limits, now);
        long later = BucketLife.endsAfter(limits, until - 1);
        if (later - (until - 1) == ends - now) {                // the horizon after a write, less the write, only falls
            return new Ahead(until, true);
        }
        return later == ends ? new Ahead(until, false) : new Ahead(now + 1, true);  // and the horizon only rises
    }

    /**
     * Until when the script may decide from a bucket written at {@code at} under {@code limits}: the first reset of a
     * limit that does not drip (a calendar quota or fixed window starts over then, which only the write mode knows).
     */
    static long deadline(List<Limit> limits, long at) {
        long deadline = Long.MAX_VALUE;
        for (Limit limit : limits) {
            deadline = Math.min(deadline, Limits.nextResetAfter(limit, at));
        }
        return deadline;
    }

    /** How a bucket keeps {@code deadline}: empty for none. */
    static String text(long deadline) {
        return deadline == Long.MAX_VALUE ? "" : Long.toString(deadline);
    }

    /** The deadline a bucket keeps as {@code text}. */
    static long deadlineOf(String text) {
        return text.isEmpty() ? Long.MAX_VALUE : Long.parseLong(text);
    }

    /** A short digest of {@code limits}, equal for equal lists in every process. */
    String stamp(List<Limit> limits) {
        String stamp = stamps.get(limits);
        if (stamp == null) {
            if (stamps.size() >= MAX_STAMPS) {
                stamps.clear();
            }
            stamp = digest(FORMAT + Codec.limits(limits));
            stamps.put(limits, stamp);
        }
        return stamp;
    }

    private static String digest(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
