package dev.zaelimiter.internal.algorithm;

import java.math.BigInteger;

/**
 * Pure token bucket arithmetic on {@code long} milli-token balances and epoch-millisecond instants.
 *
 * <p>Refill is anchored to a fixed grid: the tokens credited between {@code t0} and {@code t1} are
 * {@code floor(t1 * rate) - floor(t0 * rate)}, so any sequence of steps credits exactly what one step over the
 * same span would. Nothing is lost to rounding, however small the steps. Products that could overflow a
 * {@code long} are computed exactly with a 128-bit fallback, and results saturate instead of wrapping.
 */
public final class BucketMath {

    /** Returned by {@link #retryAfterMillis} when the requested amount can never be available. */
    public static final long NEVER = Long.MAX_VALUE;

    private BucketMath() {
    }

    /**
     * The balance at {@code now} of a bucket that held {@code balance} at {@code last}.
     *
     * @param balance    milli-tokens at {@code last}; may be negative (debt)
     * @param capacity   the ceiling in milli-tokens, greater than zero
     * @param amount     milli-tokens returned every {@code period}, greater than zero
     * @param period     the refill period in milliseconds, greater than zero
     * @param last       the instant {@code balance} was computed for
     * @param now        the instant to refill to; a {@code now} before {@code last} refills nothing
     * @return the refilled balance, never above {@code capacity}
     */
    public static long refill(long balance, long capacity, long amount, long period, long last, long now) {
        if (balance >= capacity) {
            return capacity;
        }
        if (now <= last) {
            return balance;
        }
        long added = credited(last, now, amount, period);
        long room = saturatedSubtract(capacity, balance);
        return added >= room ? capacity : balance + added;
    }

    /**
     * Milliseconds from {@code at} until a bucket holding {@code balance} at {@code at} holds at least {@code need},
     * or {@link #NEVER} when {@code need} exceeds {@code capacity}. Zero when it already does.
     */
    public static long retryAfterMillis(long balance, long need, long capacity, long amount, long period, long at) {
        if (balance >= need) {
            return 0;
        }
        if (need > capacity) {
            return NEVER;
        }
        long deficit = saturatedSubtract(need, balance);
        // smallest t with floor((t * amount + rem) / period) >= deficit, i.e. t * amount >= deficit * period - rem
        long product = deficit * period;
        if (amount > 0 && deficit > 0 && period > 0 && Math.multiplyHigh(deficit, period) == 0 && product >= 0) {
            long exact = product - gridRemainder(at, amount, period);   // the same in long arithmetic: no overflow
            if (exact <= 0) {
                return 0;
            }
            return exact / amount + (exact % amount == 0 ? 0 : 1);
        }
        BigInteger target = BigInteger.valueOf(deficit).multiply(BigInteger.valueOf(period))
                .subtract(BigInteger.valueOf(gridRemainder(at, amount, period)));
        if (target.signum() <= 0) {
            return 0;
        }
        BigInteger[] qr = target.divideAndRemainder(BigInteger.valueOf(amount));
        BigInteger t = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return t.bitLength() < 64 && t.longValue() != NEVER ? t.longValue() : NEVER;
    }

    /**
     * {@code floor(a * b / divisor)} for non-negative {@code a} and {@code b} and a positive {@code divisor}, exact
     * even when the product needs more than 63 bits, saturating at {@code Long.MAX_VALUE}.
     */
    public static long multiplyDivide(long a, long b, long divisor) {
        long product = a * b;
        if (Math.multiplyHigh(a, b) == 0 && product >= 0) {
            return product / divisor;
        }
        BigInteger exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(divisor));
        return exact.bitLength() < 64 ? exact.longValue() : Long.MAX_VALUE;
    }

    /** {@code ceil(a * b / divisor)}, as {@link #multiplyDivide}, saturating at {@code Long.MAX_VALUE}. */
    public static long multiplyDivideUp(long a, long b, long divisor) {
        long product = a * b;
        if (Math.multiplyHigh(a, b) == 0 && product >= 0) {
            return product / divisor + (product % divisor == 0 ? 0 : 1);
        }
        BigInteger[] qr = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
                .divideAndRemainder(BigInteger.valueOf(divisor));
        BigInteger up = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return up.bitLength() < 64 ? up.longValue() : Long.MAX_VALUE;
    }

    /** Adds {@code delta} (either sign) to {@code balance}, saturating, and never above {@code capacity}. */
    public static long add(long balance, long delta, long capacity) {
        return Math.min(capacity, saturatedAdd(balance, delta));
    }

    /** {@code a + b}, clamped to the {@code long} range instead of wrapping. */
    public static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** {@code a - b}, clamped to the {@code long} range instead of wrapping. */
    public static long saturatedSubtract(long a, long b) {
        long r = a - b;
        if (((a ^ b) & (a ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** Milli-tokens credited between {@code last} and {@code now} (later), exact, saturating at {@code Long.MAX_VALUE}. */
    static long credited(long last, long now, long amount, long period) {
        long rem = gridRemainder(last, amount, period);
        long elapsed = now - last;
        if (((now ^ last) & (now ^ elapsed)) >= 0) {
            long hi = Math.multiplyHigh(elapsed, amount);
            long lo = elapsed * amount;
            if (hi == 0 && lo >= 0 && lo <= Long.MAX_VALUE - rem) {
                return (lo + rem) / period;
            }
        }
        BigInteger exact = BigInteger.valueOf(now).subtract(BigInteger.valueOf(last))
                .multiply(BigInteger.valueOf(amount)).add(BigInteger.valueOf(rem)).divide(BigInteger.valueOf(period));
        return exact.bitLength() < 64 ? exact.longValue() : Long.MAX_VALUE;
    }

    /** {@code (instant * amount) mod period}: how far {@code instant} sits past the last whole milli-token. */
    static long gridRemainder(long instant, long amount, long period) {
        long x = Math.floorMod(instant, period);
        long y = Math.floorMod(amount, period);
        if (y == 0 || x <= Long.MAX_VALUE / y) {
            return (x * y) % period;
        }
        return BigInteger.valueOf(x).multiply(BigInteger.valueOf(y)).mod(BigInteger.valueOf(period)).longValue();
    }
}
