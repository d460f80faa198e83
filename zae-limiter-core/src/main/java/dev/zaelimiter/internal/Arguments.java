package dev.zaelimiter.internal;

import dev.zaelimiter.ValidationException;

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
}
