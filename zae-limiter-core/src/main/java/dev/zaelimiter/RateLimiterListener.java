package dev.zaelimiter;

/**
 * Observes the decisions of a {@link RateLimiter}, for metrics and logs. Called on the caller's thread after each
 * acquire that reached a decision (validation errors and store errors under {@link Unavailable#BLOCK} are not
 * decisions); must be fast and must not throw.
 */
@FunctionalInterface
public interface RateLimiterListener {

    void onDecision(Decision decision);
}
