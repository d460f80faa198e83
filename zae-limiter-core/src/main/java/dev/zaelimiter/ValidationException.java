package dev.zaelimiter;

/**
 * Input that breaks a rule: a malformed identifier, a non-positive capacity, a negative amount. Raised before
 * anything is written. {@link #field()} names what was wrong and {@link #value()} carries the offending value.
 */
public class ValidationException extends RateLimiterException {

    private final String field;
    private final transient Object value;
    private final String rule;

    public ValidationException(String field, Object value, String rule) {
        super(field + " " + quote(value) + " is invalid: " + rule);
        this.field = field;
        this.value = value;
        this.rule = rule;
    }

    /** The value as the message shows it: quoted when it is text, cut short when it is long. */
    private static String quote(Object value) {
        String text = String.valueOf(value);
        if (text.length() > MAX_SHOWN) {
            text = text.substring(0, MAX_SHOWN) + "... (" + text.length() + " chars)";
        }
        return value instanceof CharSequence ? "'" + text + "'" : text;
    }

    /** The most characters of a rejected value that a message repeats; {@link #value()} keeps all of it. */
    private static final int MAX_SHOWN = 200;

    /** The name of the argument or property that was wrong, such as {@code entityId} or {@code consume.rpm}. */
    public String field() {
        return field;
    }

    /** The rejected value, as given. */
    public Object value() {
        return value;
    }

    /** The rule the value broke, as the message states it after "is invalid: ". */
    public String rule() {
        return rule;
    }
}
