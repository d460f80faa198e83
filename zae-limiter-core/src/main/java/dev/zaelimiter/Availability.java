package dev.zaelimiter;

import java.time.Duration;
import java.util.List;

/**
 * What {@link RateLimiter#checkAvailability} found: whether the request would be admitted now, without consuming.
 *
 * @param allowed    whether every hard limit holds the requested amounts
 * @param bypassed   whether the entity is in {@link DisabledMode#BYPASS} on the resource
 * @param retryAfter the longest wait among the limits that would refuse; zero when allowed
 * @param statuses   every limit checked, the entity's first, then its parent's when the call would cascade
 */
public record Availability(boolean allowed, boolean bypassed, Duration retryAfter, List<LimitStatus> statuses) {

    public Availability {
        statuses = List.copyOf(statuses);
    }
}
