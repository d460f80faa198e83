package dev.zaelimiter.internal;

import dev.zaelimiter.ValidationException;

import java.time.Instant;

/** The check every public method makes of an argument that has no meaning when {@code null}. */
public final class Arguments {

    private Arguments() {
    }

    /**
     * {@code value}, or a {@link ValidationException} naming {@code field} when it is {@code null}.
     */
    public static <T> T required(String field, T value) {
        if (value == null) {
            throw new ValidationException(field, null, "is required");
        }
        return value;
    }

    /**
     * {@code instant} in epoch milliseconds, or a {@link ValidationException} naming {@code field} when it is
     * {@code null} or lies beyond what a {@code long} of milliseconds holds.
     */
    public static long epochMillis(String field, Instant instant) {
        try {
            return required(field, instant).toEpochMilli();
        } catch (ArithmeticException e) {
            throw new ValidationException(field, instant, "an instant that epoch milliseconds can hold (within"
                    + " about 292 million years)");
        }
    }
}
