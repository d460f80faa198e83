package dev.zaelimiter;

import java.time.Duration;
import java.util.Objects;

/**
 * A named budget: a token bucket that holds at most {@link #capacity()} tokens and gets {@link #refillAmount()}
 * tokens back every {@link #refillPeriod()}, continuously. Immutable; every factory validates its arguments.
 *
 * <pre>{@code
 * Limit.perMinute("rpm", 100)                 // 100 per minute, burst 100
 * Limit.perMinute("tpm", 10_000).withBurst(20_000)
 * Limit.custom("jobs", 5, 1, Duration.ofSeconds(30)).soft()
 * }</pre>
 */
public final class Limit {

    /** The largest capacity or refill amount, in tokens. Balances are kept in milli-tokens in a {@code long}. */
    public static final long MAX_TOKENS = 1_000_000_000_000_000L;

    /** Milli-tokens per token: all internal arithmetic is in milli-tokens. */
    public static final long MILLI = 1000L;

    private final String name;
    private final long capacity;
    private final long refillAmount;
    private final Duration refillPeriod;
    private final long refillPeriodMillis;
    private final boolean soft;

    private Limit(String name, long capacity, long refillAmount, Duration refillPeriod, boolean soft) {
        this.name = Identifiers.limitName("limit name", name);
        this.capacity = positiveTokens(name, "capacity", capacity);
        this.refillAmount = positiveTokens(name, "refillAmount", refillAmount);
        Objects.requireNonNull(refillPeriod, "refillPeriod");
        if (refillPeriod.isNegative() || refillPeriod.toMillis() < 1) {
            throw new ValidationException("limit " + name + " refillPeriod", refillPeriod,
                    "the refill period must be at least one millisecond");
        }
        this.refillPeriod = refillPeriod;
        this.refillPeriodMillis = refillPeriod.toMillis();
        this.soft = soft;
    }

    private static long positiveTokens(String name, String field, long value) {
        if (value <= 0) {
            throw new ValidationException("limit " + name + " " + field, value, "must be greater than zero");
        }
        if (value > MAX_TOKENS) {
            throw new ValidationException("limit " + name + " " + field, value, "must be at most " + MAX_TOKENS);
        }
        return value;
    }

    /** {@code rate} tokens per second; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perSecond(String name, long rate) {
        return new Limit(name, rate, rate, Duration.ofSeconds(1), false);
    }

    /** {@code rate} tokens per minute; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perMinute(String name, long rate) {
        return new Limit(name, rate, rate, Duration.ofMinutes(1), false);
    }

    /** {@code rate} tokens per hour; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perHour(String name, long rate) {
        return new Limit(name, rate, rate, Duration.ofHours(1), false);
    }

    /** {@code rate} tokens per day; capacity {@code rate} unless {@link #withBurst(long)} raises it. */
    public static Limit perDay(String name, long rate) {
        return new Limit(name, rate, rate, Duration.ofDays(1), false);
    }

    /** A bucket of {@code capacity} tokens that gets {@code refillAmount} back every {@code refillPeriod}. */
    public static Limit custom(String name, long capacity, long refillAmount, Duration refillPeriod) {
        return new Limit(name, capacity, refillAmount, refillPeriod, false);
    }

    /** The same limit with another capacity (the largest burst); the refill rate is unchanged. */
    public Limit withBurst(long burst) {
        return new Limit(name, burst, refillAmount, refillPeriod, soft);
    }

    /** The same limit, metered but never rejecting: it may go into debt instead. */
    public Limit soft() {
        return new Limit(name, capacity, refillAmount, refillPeriod, true);
    }

    /** The same limit, enforced. */
    public Limit hard() {
        return new Limit(name, capacity, refillAmount, refillPeriod, false);
    }

    public String name() {
        return name;
    }

    /** The most tokens the bucket holds, which is also the largest single request it can admit. */
    public long capacity() {
        return capacity;
    }

    /** Tokens returned every {@link #refillPeriod()}. */
    public long refillAmount() {
        return refillAmount;
    }

    public Duration refillPeriod() {
        return refillPeriod;
    }

    /** True when the limit is metered only and never rejects. */
    public boolean isSoft() {
        return soft;
    }

    /** {@link #capacity()} in milli-tokens. */
    public long capacityMilli() {
        return capacity * MILLI;
    }

    /** {@link #refillAmount()} in milli-tokens. */
    public long refillAmountMilli() {
        return refillAmount * MILLI;
    }

    /** {@link #refillPeriod()} in whole milliseconds. */
    public long refillPeriodMillis() {
        return refillPeriodMillis;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Limit other
                && name.equals(other.name)
                && capacity == other.capacity
                && refillAmount == other.refillAmount
                && refillPeriod.equals(other.refillPeriod)
                && soft == other.soft;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, capacity, refillAmount, refillPeriod, soft);
    }

    @Override
    public String toString() {
        return "Limit[" + name + ": " + refillAmount + " per " + refillPeriod + ", capacity " + capacity
                + (soft ? ", soft" : "") + "]";
    }
}
