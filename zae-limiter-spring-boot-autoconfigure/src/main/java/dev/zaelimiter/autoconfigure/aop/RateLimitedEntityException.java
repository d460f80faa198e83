package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.ValidationException;

/**
 * The entity expression of a {@code @RateLimited} method gave no entity id, or one that is not valid (such as a path
 * variable {@code -bad}): the caller's input, so the web exception handlers answer 400 as the rate limit filter does.
 * The rejected value stays in {@link #value()} and is never echoed to the client.
 */
public class RateLimitedEntityException extends ValidationException {

    private final String resource;
    private final String source;
    private final boolean missing;

    RateLimitedEntityException(String resource, String source, Object value, boolean missing, String rule) {
        super(missing ? "entity" : "entityId", value, rule);
        this.resource = resource;
        this.source = source;
        this.missing = missing;
    }

    /** The resource of the annotation. */
    public String resource() {
        return resource;
    }

    /** The entity expression, such as {@code #id}. */
    public String source() {
        return source;
    }

    /** Whether the expression gave nothing (blank or {@code null}) rather than an invalid id. */
    public boolean missing() {
        return missing;
    }
}
