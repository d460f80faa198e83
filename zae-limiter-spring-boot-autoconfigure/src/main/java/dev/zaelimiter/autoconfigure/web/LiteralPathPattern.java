package dev.zaelimiter.autoconfigure.web;

import org.springframework.web.util.pattern.PathPattern;

/**
 * A {@link PathPattern} made of literal segments only, optionally ending with {@code /**} ({@code /api/**},
 * {@code /api/items}, {@code /**}, {@code /}), matched on the request URI as a string. For a URI that {@link #start}
 * accepts it answers as the pattern does on the path Spring parses from that URI, without parsing it; any other
 * pattern or URI goes through Spring's parser and the pattern itself.
 *
 * @param literal the pattern without its {@code /**}; empty for {@code /**}
 * @param rest    whether the pattern ends with {@code /**}
 */
record LiteralPathPattern(String literal, boolean rest) {

    /** Characters with a meaning in a pattern other than themselves ({@code %} and {@code ;} are not plain either). */
    private static final String WILDCARDS = "*?{}\\";

    /** The literal form of {@code pattern}, or {@code null} when it has wildcards, variables or special characters. */
    static LiteralPathPattern of(PathPattern pattern) {
        String text = pattern.getPatternString();
        if (text.equals("/")) {
            return new LiteralPathPattern(text, false);
        }
        if (text.equals("/**")) {
            return new LiteralPathPattern("", true);
        }
        boolean rest = text.endsWith("/**");
        String literal = rest ? text.substring(0, text.length() - 3) : text;
        if (literal.length() < 2 || !isPlain(literal)) {
            return null;
        }
        for (int i = 0; i < literal.length(); i++) {
            if (WILDCARDS.indexOf(literal.charAt(i)) >= 0) {
                return null;
            }
        }
        return new LiteralPathPattern(literal, rest);
    }

    /**
     * Where the path within the application starts in {@code uri}, or {@code -1} when the URI must be parsed by
     * Spring: it is empty or does not start with {@code /}, it has an encoded character ({@code %}), a path parameter
     * ({@code ;}), an empty segment ({@code //}) or a trailing {@code /}, or {@code contextPath} is not a prefix of it
     * ending at a segment.
     */
    static int start(String uri, String contextPath) {
        if (uri == null || !isPlain(uri)) {
            return -1;
        }
        if (contextPath == null || contextPath.isEmpty() || contextPath.equals("/")) {
            return 0;
        }
        int length = contextPath.length();
        if (length < uri.length() && uri.charAt(length) == '/' && uri.startsWith(contextPath)) {
            return length;
        }
        return -1;
    }

    /** Whether the pattern matches the path that starts at {@code from} in a URI {@link #start} accepted. */
    boolean matches(String uri, int from) {
        int length = uri.length() - from;
        if (!rest) {
            return length == literal.length() && uri.startsWith(literal, from);
        }
        int end = from + literal.length();
        return uri.startsWith(literal, from) && (end == uri.length() || uri.charAt(end) == '/');
    }

    /** Non-empty, starting with {@code /}, without {@code %} or {@code ;}, no empty segment, no trailing {@code /}. */
    private static boolean isPlain(String path) {
        int length = path.length();
        if (length == 0 || path.charAt(0) != '/' || (length > 1 && path.charAt(length - 1) == '/')) {
            return false;
        }
        char previous = '/';
        for (int i = 1; i < length; i++) {
            char c = path.charAt(i);
            if (c == '%' || c == ';' || (c == '/' && previous == '/')) {
                return false;
            }
            previous = c;
        }
        return true;
    }
}
