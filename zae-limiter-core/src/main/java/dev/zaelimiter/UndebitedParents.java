package dev.zaelimiter;

import dev.zaelimiter.store.BucketKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reports admitted cascading calls whose parent has no limits for the resource at any level (its own, its
 * {@code _default_}, the resource's or the system's), so that the parent was not debited: to the
 * {@link RateLimiterListener} every time, and as a warning in the log at most once per {@link #WARN_INTERVAL_MILLIS}
 * per parent and resource.
 */
final class UndebitedParents {

    /** The least time between two warnings about the same parent on the same resource. */
    static final long WARN_INTERVAL_MILLIS = 60_000;

    private static final int MAX_KEYS = 10_000;

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);

    /** A cascading call whose parent could not be debited. */
    record Skipped(String entityId, String parentId, String resource) {
    }

    private final Clock clock;
    private final RateLimiterListener listener;
    private final Map<BucketKey, Long> lastWarned = new ConcurrentHashMap<>();

    UndebitedParents(Clock clock, RateLimiterListener listener) {
        this.clock = clock;
        this.listener = listener;
    }

    /** Reports one admitted call; returns whether a warning was logged. */
    boolean report(Skipped skipped) {
        if (listener != null) {
            try {
                listener.onParentNotDebited(skipped.entityId(), skipped.parentId(), skipped.resource());
            } catch (RuntimeException e) {
                log.warn("rate limiter listener failed", e);
            }
        }
        long now = clock.millis();
        BucketKey key = new BucketKey(skipped.parentId(), skipped.resource());
        Long last = lastWarned.get(key);
        if (last != null && now >= last && now - last < WARN_INTERVAL_MILLIS) {
            return false;
        }
        if (lastWarned.size() >= MAX_KEYS) {
            lastWarned.clear();
        }
        boolean mine = last == null ? lastWarned.putIfAbsent(key, now) == null : lastWarned.replace(key, last, now);
        if (mine) {
            log.warn("{} cascades to {} on {}, but {} has no limits for {} at any level (its own, its _default_, the"
                    + " resource's or the system's), so it was not debited; give it limits or set resource defaults"
                    + " (this warning repeats at most once a minute per parent and resource)", skipped.entityId(),
                    skipped.parentId(), skipped.resource(), skipped.parentId(), skipped.resource());
        }
        return mine;
    }
}
