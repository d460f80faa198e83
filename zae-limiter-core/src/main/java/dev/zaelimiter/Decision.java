package dev.zaelimiter;

import java.time.Duration;
import java.util.List;

/**
 * One acquire as a {@link RateLimiterListener} sees it.
 *
 * @param entityId the entity
 * @param resource the resource
 * @param outcome  what happened
 * @param statuses every limit checked (empty when the store was unavailable)
 * @param latency  how long the decision took, store included
 * @param onUnavailable the unavailability policy of the call (the request's own, or the limiter's); what made a
 *                      {@link Outcome#DEGRADED} outcome
 */
public record Decision(String entityId, String resource, Outcome outcome, List<LimitStatus> statuses,
        Duration latency, Unavailable onUnavailable) {

    public Decision {
        statuses = List.copyOf(statuses);
    }

    /** The kinds of outcome. */
    public enum Outcome {
        /** Admitted and debited. */
        ADMITTED,
        /** Admitted in {@link DisabledMode#BYPASS}: counted, not debited. */
        BYPASSED,
        /** Refused by a hard limit. */
        REFUSED,
        /** Admitted without the store, which was unavailable, under {@link Unavailable#ALLOW}. */
        DEGRADED
    }
}
