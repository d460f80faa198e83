package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RetryAfter;
import dev.zaelimiter.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What the blocking interceptor and the reactive filter function share: the entity of a call, its acquire request,
 * whether a response asks to pause and the pause itself, the lease adjustment from response headers.
 */
final class OutboundCalls {

    private static final Logger log = LoggerFactory.getLogger(OutboundCalls.class);

    private OutboundCalls() {
    }

    /** The entity of a call: the target's fixed id, or its request attribute. */
    static String entityId(OutboundTarget target, Map<String, Object> attributes) {
        if (target.entityId() != null) {
            return target.entityId();
        }
        Object value = attributes.get(target.entityAttribute());
        if (value == null || value.toString().isBlank()) {
            throw new ValidationException("entityId", null, "target '" + target.name() + "' takes the entity from"
                    + " request attribute '" + target.entityAttribute() + "', which this request does not have");
        }
        return value.toString();
    }

    static AcquireRequest request(OutboundTarget target, String entityId, Duration maxWait) {
        return AcquireRequest.of(entityId, target.resource()).consume(target.consume()).maxWait(maxWait)
                .onUnavailable(target.onUnavailable());
    }

    /** Whether {@code status} is one of the target's pausing statuses: its lease is rolled back, whatever follows. */
    static boolean pausing(OutboundTarget target, int status) {
        return target.pauseOn().contains(status);
    }

    /**
     * Pauses the target's resource (or the entity on it) as the response's Retry-After asks.
     *
     * @return when the pause ends; empty, pausing nothing, when the response has no Retry-After or one that is
     *         unreadable or asks for no wait (zero, or a date that has passed)
     */
    static Optional<Instant> pause(RateLimiter limiter, OutboundTarget target, String entityId, HttpHeaders headers) {
        String retryAfter = headers.getFirst(HttpHeaders.RETRY_AFTER);
        if (retryAfter == null || retryAfter.isBlank()) {
            return Optional.empty();
        }
        Duration wait;
        try {
            wait = RetryAfter.parse(retryAfter, limiter.clock().instant());
        } catch (ValidationException e) {
            log.warn("upstream of target '{}' sent a Retry-After that is neither seconds nor an HTTP date, not"
                    + " pausing: {}", target.name(), retryAfter);
            return Optional.empty();
        }
        if (wait.isZero() || wait.isNegative()) {
            return Optional.empty();
        }
        if (wait.compareTo(target.maxPause()) > 0) {
            log.warn("upstream of target '{}' asked for a break of {}, cut to its max-pause {}", target.name(), wait,
                    target.maxPause());
            wait = target.maxPause();
        }
        Instant until = target.pause() == OutboundTarget.PauseScope.ENTITY
                ? limiter.pauseForUpstream(entityId, target.resource(), wait)
                : limiter.pauseForUpstream(target.resource(), wait);
        log.info("upstream of target '{}' asked for a break: resource '{}'{} paused until {}", target.name(),
                target.resource(), target.pause() == OutboundTarget.PauseScope.ENTITY
                        ? " for entity '" + entityId + "'" : "", until);
        return Optional.of(until);
    }

    /** Whether a call paused until {@code until} may wait for it and retry once. */
    static boolean mayRetry(OutboundTarget target, Instant until, Instant now) {
        return until != null && !target.maxWait().isZero()
                && Duration.between(now, until).compareTo(target.maxWait()) <= 0;
    }

    /**
     * Adjusts {@code lease} to the tokens the response headers say the call used. A value that is not a whole number
     * of 0 or more is ignored, and an adjustment the limiter refuses (beyond a limit's bounds, a limit the resource
     * does not have, a store failure) is logged: neither keeps the lease from being closed.
     */
    static void adjust(OutboundTarget target, Lease lease, HttpHeaders headers) {
        target.adjustFrom().forEach((limit, header) -> {
            String value = headers.getFirst(header);
            if (value == null) {
                return;
            }
            long used;
            try {
                used = Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                used = -1;
            }
            if (used < 0) {
                log.debug("target '{}': header {} is not a whole number of 0 or more, ignored: {}", target.name(),
                        header, value);
                return;
            }
            long consumed = target.consume().getOrDefault(limit, 0L);
            if (used == consumed) {
                return;
            }
            try {
                lease.adjust(limit, used - consumed);
            } catch (RuntimeException e) {
                log.warn("target '{}': could not adjust limit '{}' to {} from header {}: {}", target.name(), limit,
                        used, header, e.toString());
            }
        });
    }
}
