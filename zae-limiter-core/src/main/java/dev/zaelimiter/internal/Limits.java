package dev.zaelimiter.internal;

import dev.zaelimiter.Limit;

import java.util.Objects;

/**
 * The engine's view of a {@link Limit}: its capacity and refill in milli-tokens and its parameters, resets and
 * window changes at an instant, which the API does not show. {@code Limit} registers how to compute them when it is
 * loaded, so that they keep using its per-instance caches without being part of its public surface.
 */
public final class Limits {

    /** Milli-tokens per token, as the store SPI publishes it. */
    public static final long MILLI = dev.zaelimiter.store.LimitState.MILLI;

    /** Returned by {@link #nextChangeAfter} and {@link #nextResetAfter} when nothing is coming. */
    public static final long NEVER = Long.MAX_VALUE;

    private static volatile Access access;

    private Limits() {
    }

    /** The parameters in force at one instant, in milli-tokens and milliseconds; a quota's refill is zero. */
    public record Parameters(long capacityMilli, long refillAmountMilli, long refillPeriodMillis) {

        /** Whether tokens come back continuously. */
        public boolean drips() {
            return refillAmountMilli > 0;
        }
    }

    /** How {@link Limit} answers for the engine; registered by {@code Limit} itself. */
    public interface Access {
        Parameters parametersAt(Limit limit, long epochMillis);

        long capacityMilli(Limit limit);

        long refillAmountMilli(Limit limit);

        long refillPeriodMillis(Limit limit);

        long maxCapacityMilli(Limit limit);

        long nextChangeAfter(Limit limit, long epochMillis);

        long nextResetAfter(Limit limit, long epochMillis);
    }

    /** Called once, by {@code Limit}'s class initialisation. */
    public static void install(Access limitAccess) {
        if (access != null) {
            throw new IllegalStateException("Limit access is installed already");
        }
        access = Objects.requireNonNull(limitAccess, "limitAccess");
    }

    /** The parameters in force during the minute that contains {@code epochMillis}. */
    public static Parameters parametersAt(Limit limit, long epochMillis) {
        return access.parametersAt(limit, epochMillis);
    }

    /** The base capacity (without schedule) in milli-tokens. */
    public static long capacityMilli(Limit limit) {
        return access.capacityMilli(limit);
    }

    /** The base refill amount in milli-tokens; zero for a quota. */
    public static long refillAmountMilli(Limit limit) {
        return access.refillAmountMilli(limit);
    }

    /** The base refill period in milliseconds. */
    public static long refillPeriodMillis(Limit limit) {
        return access.refillPeriodMillis(limit);
    }

    /** The largest capacity the limit has in any window, in milli-tokens: a request above it can never pass. */
    public static long maxCapacityMilli(Limit limit) {
        return access.maxCapacityMilli(limit);
    }

    /** The first instant after {@code epochMillis} at which a schedule window opens or closes; {@link #NEVER}. */
    public static long nextChangeAfter(Limit limit, long epochMillis) {
        return access.nextChangeAfter(limit, epochMillis);
    }

    /** The first reset edge of a calendar quota or fixed window strictly after {@code epochMillis}; {@link #NEVER}. */
    public static long nextResetAfter(Limit limit, long epochMillis) {
        return access.nextResetAfter(limit, epochMillis);
    }
}
