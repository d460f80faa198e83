package dev.zaelimiter;

/**
 * Observes the decisions of a {@link RateLimiter}, for metrics and logs. Called on the caller's thread after each
 * acquire that reached a decision (validation errors and store errors under {@link Unavailable#BLOCK} are not
 * decisions); must be fast and must not throw.
 */
@FunctionalInterface
public interface RateLimiterListener {

    void onDecision(Decision decision);

    /**
     * A cascading call of {@code entityId} was admitted but its parent has no limits for {@code resource} at any
     * level (its own, its {@code _default_}, the resource defaults or the system defaults), so the parent was not
     * debited. The limiter also logs a warning, at most once a minute per parent and resource. Does nothing unless
     * overridden.
     */
    default void onParentNotDebited(String entityId, String parentId, String resource) {
    }
}
