package dev.zaelimiter.autoconfigure.client;

import java.time.Duration;
import java.time.Instant;

/**
 * An upstream answered a call with {@code 429} or {@code 503} and {@code Retry-After}: the target's resource (or the
 * entity on it) is now paused until {@link #pausedUntil()} for every process sharing the store, the call's lease was
 * rolled back, and the call was not retried (its {@code maxWait} did not cover the pause, or the retry was refused
 * again).
 */
public class UpstreamRateLimitedException extends RuntimeException {

    private final String target;
    private final String resource;
    private final String entityId;
    private final int status;
    private final Instant pausedUntil;

    public UpstreamRateLimitedException(String target, String resource, String entityId, int status,
            Instant pausedUntil) {
        super("upstream of target '" + target + "' answered " + status + "; resource '" + resource + "' is paused"
                + (pausedUntil != null ? " until " + pausedUntil : ""));
        this.target = target;
        this.resource = resource;
        this.entityId = entityId;
        this.status = status;
        this.pausedUntil = pausedUntil;
    }

    public String target() {
        return target;
    }

    public String resource() {
        return resource;
    }

    /** The entity the call counted against. */
    public String entityId() {
        return entityId;
    }

    /** The upstream's status, 429 or 503 by default. */
    public int status() {
        return status;
    }

    /** When the pause ends; {@code null} when the upstream's Retry-After asked for no wait. */
    public Instant pausedUntil() {
        return pausedUntil;
    }

    /** How long from {@code now} until the pause ends, zero when it has. */
    public Duration retryAfter(Instant now) {
        return pausedUntil == null || !pausedUntil.isAfter(now) ? Duration.ZERO : Duration.between(now, pausedUntil);
    }
}
