package dev.zaelimiter.internal.algorithm;

import dev.zaelimiter.internal.Limits;
import dev.zaelimiter.Limit;

import java.math.BigInteger;

/**
 * A dripping bucket written as the point on its refill grid at which it is full again (GCRA's theoretical arrival
 * time, in whole milli-tokens), instead of a balance and the instant it was computed for.
 *
 * <p>The grid counts the milli-tokens a limit has credited since the epoch: {@code grid(t) = floor(t * amount /
 * period)}, the same grid as {@link BucketMath#refill}. A bucket that is full at grid point {@code f} holds
 * {@code capacity - max(0, f - grid(t))} at {@code t}. Taking {@code a} moves {@code f} to {@code max(f, grid(t)) +
 * a}; giving back {@code r} moves it to {@code max(f - r, grid(t))}. Because these moves need no balance read
 * first, a shared store can apply them in one conditional write whether the bucket was idle or busy, and idle time
 * is never credited twice. Values can exceed the {@code long} range (a fast limit far from the epoch), so they are
 * {@link BigInteger}s; balances derived from them saturate like {@link BucketMath}.
 */
public final class FullAt {

    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);

    private FullAt() {
    }

    /** Milli-tokens the limit has credited from the epoch to {@code instant}, rounded down. */
    public static BigInteger grid(long instant, Limits.Parameters p) {
        long hi = Math.multiplyHigh(instant, p.refillAmountMilli());
        long lo = instant * p.refillAmountMilli();
        if (hi == 0 && lo >= 0) {
            return BigInteger.valueOf(lo / p.refillPeriodMillis());
        }
        BigInteger[] qr = BigInteger.valueOf(instant).multiply(BigInteger.valueOf(p.refillAmountMilli()))
                .divideAndRemainder(BigInteger.valueOf(p.refillPeriodMillis()));
        return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
    }

    /** The balance at {@code instant} of a bucket full at {@code fullAt}: never above capacity, saturating below. */
    public static long balance(BigInteger fullAt, long instant, Limits.Parameters p) {
        BigInteger deficit = fullAt.subtract(grid(instant, p));
        if (deficit.signum() <= 0) {
            return p.capacityMilli();
        }
        BigInteger balance = BigInteger.valueOf(p.capacityMilli()).subtract(deficit);
        return balance.compareTo(LONG_MIN) < 0 ? Long.MIN_VALUE : balance.longValue();
    }

    /** Where a bucket holding {@code balance} at {@code instant} is full again; a full one is full at once. */
    public static BigInteger of(long balance, long instant, Limits.Parameters p) {
        BigInteger grid = grid(instant, p);
        if (balance >= p.capacityMilli()) {
            return grid;
        }
        return grid.add(BigInteger.valueOf(p.capacityMilli())).subtract(BigInteger.valueOf(balance));
    }
}
