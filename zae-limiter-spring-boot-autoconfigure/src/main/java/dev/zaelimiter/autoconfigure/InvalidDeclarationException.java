package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.ValidationException;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A property that zae-limiter cannot use (a limit declaration, a rule or a setting under {@code zae.limiter}, or the
 * Spring Cloud AWS setting it depends on): names the property, says why, and what to write.
 */
public class InvalidDeclarationException extends RuntimeException {

    private final String property;
    private final String reason;
    private final String action;
    private final String rule;

    public InvalidDeclarationException(String property, String reason) {
        this(property, reason, null);
    }

    /**
     * @param action what to write instead, as a sentence; {@code null} lets the failure report derive it from the
     *         property
     */
    public InvalidDeclarationException(String property, String reason, String action) {
        this(property, reason, action, null);
    }

    private InvalidDeclarationException(String property, String reason, String action, String rule) {
        super(property + ": " + reason);
        this.property = property;
        this.reason = reason;
        this.action = action;
        this.rule = rule;
    }

    /**
     * Runs one of the library's checks; a {@link ValidationException} it raises becomes this exception for
     * {@code property}, in the library's words.
     */
    public static <T> T check(String property, Supplier<T> check) {
        return check(e -> property, check);
    }

    /**
     * Runs one of the library's checks; a {@link ValidationException} it raises becomes this exception for the
     * property {@code propertyOf} names for it (usually from {@link ValidationException#field()}), in the library's
     * words.
     */
    public static <T> T check(Function<ValidationException, String> propertyOf, Supplier<T> check) {
        try {
            return check.get();
        } catch (ValidationException e) {
            throw new InvalidDeclarationException(propertyOf.apply(e), e.getMessage(), null, e.rule());
        }
    }

    /**
     * The property a field of the library's API stands for: its camelCase words in kebab case, so
     * {@code circuitBreaker.coolDown} under {@code zae.limiter} is {@code zae.limiter.circuit-breaker.cool-down}.
     */
    public static String property(String prefix, String field) {
        StringBuilder kebab = new StringBuilder(prefix).append('.');
        for (char c : field.toCharArray()) {
            if (Character.isUpperCase(c)) {
                kebab.append('-').append(Character.toLowerCase(c));
            } else {
                kebab.append(c);
            }
        }
        return kebab.toString();
    }

    /** The rule of the library's that the value broke, when the library refused it; otherwise {@code null}. */
    public String rule() {
        return rule;
    }

    /** What to write instead, or {@code null} when the property alone says it. */
    public String action() {
        return action;
    }

    /** The full property path, such as {@code zae.limiter.resources.gpt-4.limits.rpm.schedule[0].cron}. */
    public String property() {
        return property;
    }

    /** Why it was refused and what to write instead. */
    public String reason() {
        return reason;
    }
}
