package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import dev.zaelimiter.internal.Identifiers;

/**
 * The naming rules for entity ids, resource names and limit names, for code outside the library that checks names
 * before it hands them over (configuration binders, request parsers). Each check returns the value when it is
 * well-formed and otherwise raises a {@link ValidationException} naming {@code field} and the rule it broke: the
 * same rules, and the same messages, that {@link RateLimiter} and {@link RateLimiterAdmin} apply.
 */
public final class Names {

    /** The resource name that stands for "every resource" in entity-level configuration. */
    public static final String DEFAULT_RESOURCE = Identifiers.DEFAULT_RESOURCE;

    /** The most characters an entity's display name may have. */
    public static final int MAX_DISPLAY_NAME = Identifiers.MAX_DISPLAY_NAME;

    private Names() {
    }

    /**
     * Letters, digits and {@code _ . - : @}, starting with a letter or digit, at most 256 characters.
     *
     * @throws ValidationException naming {@code field} when {@code value} breaks the rule
     */
    public static String entityId(String field, String value) {
        return Identifiers.entityId(Arguments.required("field", field), value);
    }

    /**
     * Letters, digits and {@code _ . -}, starting with a letter, at most 64 characters.
     *
     * @throws ValidationException naming {@code field} when {@code value} breaks the rule
     */
    public static String limitName(String field, String value) {
        return Identifiers.limitName(Arguments.required("field", field), value);
    }

    /**
     * As a limit name, plus {@code /}, at most 256 characters.
     *
     * @throws ValidationException naming {@code field} when {@code value} breaks the rule
     */
    public static String resource(String field, String value) {
        return Identifiers.resource(Arguments.required("field", field), value);
    }

    /**
     * A resource name, or {@link #DEFAULT_RESOURCE} for entity-level configuration that covers every resource.
     *
     * @throws ValidationException naming {@code field} when {@code value} breaks the rule
     */
    public static String resourceOrDefault(String field, String value) {
        return Identifiers.resourceOrDefault(Arguments.required("field", field), value);
    }
}
