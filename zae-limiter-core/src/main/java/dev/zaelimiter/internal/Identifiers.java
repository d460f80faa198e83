package dev.zaelimiter.internal;

import dev.zaelimiter.ValidationException;

/**
 * The naming rules for entity ids, resource names and limit names. Each check raises a {@link ValidationException}
 * that names the field and the rule it broke.
 */
public final class Identifiers {

    /** The resource name that stands for "every resource" in entity-level configuration. */
    public static final String DEFAULT_RESOURCE = "_default_";

    static final int MAX_ENTITY_ID = 256;
    static final int MAX_NAME = 64;
    static final int MAX_RESOURCE = 256;

    /**
     * The longest display name of an entity, in characters (UTF-16 code units). A DynamoDB item holds at most
     * 400 KB; a name this long takes at most 3 KB of it.
     */
    public static final int MAX_DISPLAY_NAME = 1024;

    /** Whether each ASCII character may follow the first one of an entity id (one lookup per character). */
    private static final boolean[] ENTITY_CHARS = new boolean[128];

    static {
        for (char c = 0; c < ENTITY_CHARS.length; c++) {
            ENTITY_CHARS[c] = isAsciiLetterOrDigit(c) || "_.-:@".indexOf(c) >= 0;
        }
    }

    private Identifiers() {
    }

    /** Letters, digits and {@code _ . - : @}, starting with a letter or digit, at most 256 characters. */
    public static String entityId(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new ValidationException(field, value, "an entity id is required");
        }
        if (value.length() > MAX_ENTITY_ID) {
            throw new ValidationException(field, value, "an entity id is at most " + MAX_ENTITY_ID + " characters");
        }
        if (!isAsciiLetterOrDigit(value.charAt(0))) {
            throw new ValidationException(field, value, "an entity id starts with a letter or a digit");
        }
        for (int i = 1; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= ENTITY_CHARS.length || !ENTITY_CHARS[c]) {
                throw new ValidationException(field, value,
                        "an entity id may contain only letters, digits and _ . - : @ (found '" + c + "')");
            }
        }
        return value;
    }

    /**
     * A display name: any text of at most {@link #MAX_DISPLAY_NAME} characters, without unpaired surrogates (they
     * cannot be stored as UTF-8). {@code null} means no name.
     */
    public static String displayName(String field, String value) {
        if (value == null) {
            return null;
        }
        if (value.length() > MAX_DISPLAY_NAME) {
            throw new ValidationException(field, value, "a display name is at most " + MAX_DISPLAY_NAME
                    + " characters (it has " + value.length() + ")");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new ValidationException(field, value, "a display name cannot hold an unpaired surrogate"
                        + " (at index " + i + "); it would not survive UTF-8");
            }
        }
        return value;
    }

    /** Letters, digits and {@code _ . -}, starting with a letter, at most 64 characters. */
    public static String limitName(String field, String value) {
        return name(field, value, "a limit name", MAX_NAME, false);
    }

    /** As a limit name, plus {@code /}, at most 256 characters. */
    public static String resource(String field, String value) {
        return name(field, value, "a resource name", MAX_RESOURCE, true);
    }

    /** A resource name, or {@link #DEFAULT_RESOURCE} for entity-level configuration that covers every resource. */
    public static String resourceOrDefault(String field, String value) {
        return DEFAULT_RESOURCE.equals(value) ? value : resource(field, value);
    }

    private static String name(String field, String value, String what, int max, boolean slash) {
        if (value == null || value.isEmpty()) {
            throw new ValidationException(field, value, what + " is required");
        }
        if (value.length() > max) {
            throw new ValidationException(field, value, what + " is at most " + max + " characters");
        }
        if (!isAsciiLetter(value.charAt(0))) {
            throw new ValidationException(field, value, what + " starts with a letter");
        }
        for (int i = 1; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!isAsciiLetterOrDigit(c) && c != '_' && c != '.' && c != '-' && !(slash && c == '/')) {
                throw new ValidationException(field, value, what + " may contain only letters, digits and _ . -"
                        + (slash ? " /" : "") + " (found '" + c + "')");
            }
        }
        return value;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isAsciiLetterOrDigit(char c) {
        return isAsciiLetter(c) || (c >= '0' && c <= '9');
    }
}
