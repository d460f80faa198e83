package dev.zaelimiter;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Calls are paused for the resource (or for this entity on it), typically because the upstream provider asked for
 * it with a {@code 429} and a {@code Retry-After}. A {@link RateLimitExceededException} whose retry-after is the end
 * of the pause and whose one violation, named {@value #PAUSE}, stands for the pause, so that callers handling rate
 * limits (and reading {@link #violations()}) handle pauses too.
 */
public class ResourcePausedException extends RateLimitExceededException {

    /** The limit name of the status that stands for a pause; no configured limit can have it. */
    public static final String PAUSE = "(paused)";

    private final String entityId;
    private final String resource;
    private final Instant pausedUntil;

    public ResourcePausedException(String entityId, String resource, Instant pausedUntil, Duration retryAfter) {
        super("resource '" + resource + "' is paused for entity '" + entityId + "' until " + pausedUntil,
                List.of(new LimitStatus(entityId, resource, PAUSE, 0, 0, 0, true, false, retryAfter)), retryAfter);
        this.entityId = entityId;
        this.resource = resource;
        this.pausedUntil = pausedUntil;
    }

    public String entityId() {
        return entityId;
    }

    public String resource() {
        return resource;
    }

    /** When the pause ends. */
    public Instant pausedUntil() {
        return pausedUntil;
    }
}
