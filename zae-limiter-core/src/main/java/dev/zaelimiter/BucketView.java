package dev.zaelimiter;

import java.time.Instant;
import java.util.List;

/**
 * What {@link RateLimiter#inspect} reports for one entity on one resource: the configuration in force and every
 * limit's state now. Reading it writes nothing.
 *
 * @param entityId    the entity
 * @param resource    the resource
 * @param entity      the entity record, or {@code null} when there is none
 * @param source      which configuration level supplied the limits
 * @param disabled    the resolved disabled mode
 * @param cascadesTo  the parent a call would also debit, or {@code null}
 * @param pausedUntil the end of a pause in force, or {@code null}
 * @param limits      each limit
 */
public record BucketView(String entityId, String resource, Entity entity, String source, DisabledMode disabled,
        String cascadesTo, Instant pausedUntil, List<LimitView> limits) {

    public BucketView {
        limits = List.copyOf(limits);
    }
}
