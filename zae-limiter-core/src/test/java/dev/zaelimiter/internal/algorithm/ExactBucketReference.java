package dev.zaelimiter.internal.algorithm;

import java.math.BigInteger;

/**
 * An independent, deliberately naive model of the token bucket in unbounded integers, used as the oracle for the
 * tests of {@link BucketMath}. It shares no code with the implementation.
 *
 * <p>The model: a limit earns {@code amount / period} milli-tokens per millisecond, continuously. Balances are whole
 * milli-tokens, so the milli-token earned at real instant {@code t} is the {@code k}-th whole one where
 * {@code k = floor(t * amount / period)}. The credit between {@code t0} and {@code t1} is therefore
 * {@code floor(t1 * amount / period) - floor(t0 * amount / period)}: splitting a span into any number of steps earns
 * exactly what the span earns (the sum telescopes), and it never differs from the ideal real-valued credit
 * {@code (t1 - t0) * amount / period} by a whole milli-token or more.
 */
public final class ExactBucketReference {

    public static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    public static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private ExactBucketReference() {
    }

    public static BigInteger big(long v) {
        return BigInteger.valueOf(v);
    }

    /** Mathematical floor of {@code x / y} for {@code y > 0}, whatever the sign of {@code x}. */
    public static BigInteger floorDiv(BigInteger x, BigInteger y) {
        return x.subtract(x.mod(y)).divide(y);
    }

    /** Mathematical ceiling of {@code x / y} for {@code y > 0}, whatever the sign of {@code x}. */
    public static BigInteger ceilDiv(BigInteger x, BigInteger y) {
        return floorDiv(x.add(y).subtract(BigInteger.ONE), y);
    }

    /** The {@code long} nearest to {@code v}: what a saturating computation must return. */
    public static long clampToLong(BigInteger v) {
        if (v.compareTo(LONG_MAX) > 0) {
            return Long.MAX_VALUE;
        }
        if (v.compareTo(LONG_MIN) < 0) {
            return Long.MIN_VALUE;
        }
        return v.longValueExact();
    }

    /** Whole milli-tokens earned from the epoch to {@code instant}, on the fixed grid. */
    public static BigInteger earnedSinceEpoch(long instant, long amount, long period) {
        return floorDiv(big(instant).multiply(big(amount)), big(period));
    }

    /** Milli-tokens credited between {@code t0} and {@code t1} ({@code t0 <= t1}), exact. */
    public static BigInteger credit(long t0, long t1, long amount, long period) {
        return earnedSinceEpoch(t1, amount, period).subtract(earnedSinceEpoch(t0, amount, period));
    }

    /** The ideal, real-valued credit over {@code elapsed} milliseconds, as the exact fraction's floor and ceiling. */
    public static BigInteger idealFloor(BigInteger elapsed, long amount, long period) {
        return floorDiv(elapsed.multiply(big(amount)), big(period));
    }

    public static BigInteger idealCeil(BigInteger elapsed, long amount, long period) {
        return ceilDiv(elapsed.multiply(big(amount)), big(period));
    }

    /**
     * The exact refilled balance, in unbounded integers: a balance at or above capacity is clipped to it, a clock
     * that did not move forward credits nothing, and nothing is ever credited above capacity.
     */
    public static BigInteger refill(long balance, long capacity, long amount, long period, long last, long now) {
        if (balance >= capacity) {
            return big(capacity);
        }
        if (now <= last) {
            return big(balance);
        }
        BigInteger b = big(balance).add(credit(last, now, amount, period));
        return b.min(big(capacity));
    }

    /**
     * The exact smallest wait {@code t >= 0} after which {@link #refill} from {@code at} to {@code at + t} holds at
     * least {@code need}, for {@code balance < need <= capacity}. Unbounded: it may exceed the {@code long} range.
     *
     * <p>We need {@code floor((at + t) a / p) >= floor(at a / p) + (need - balance) =: F}, that is
     * {@code (at + t) a >= F p}, that is {@code t >= ceil(F p / a) - at}.
     */
    public static BigInteger retryAfter(long balance, long need, long amount, long period, long at) {
        BigInteger deficit = big(need).subtract(big(balance));
        BigInteger target = earnedSinceEpoch(at, amount, period).add(deficit);
        BigInteger t = ceilDiv(target.multiply(big(period)), big(amount)).subtract(big(at));
        return t.max(BigInteger.ZERO);
    }
}
