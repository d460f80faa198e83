package dev.zaelimiter;

/**
 * Input that breaks a rule: a malformed identifier, a non-positive capacity, a negative amount. Raised before
 * anything is written. {@link #field()} names what was wrong and {@link #value()} carries the offending value.
 */
public class ValidationException extends RateLimiterException {

    private final String field;
    private final transient Object value;

    public ValidationException(String field, Object value, String rule) {
        super(field + " " + quote(value) + " is invalid: " + rule);
        this.field = field;
        this.value = value;
    }

    private static String quote(Object value) {
        return value instanceof CharSequence ? "'" + value + "'" : String.valueOf(value);
    }

    /** The name of the argument or property that was wrong, such as {@code entityId} or {@code consume.rpm}. */
    public String field() {
        return field;
    }

    /** The rejected value, as given. */
    public Object value() {
        return value;
    }
}
