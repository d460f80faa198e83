package dev.zaelimiter;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One change of what the limiter enforces, as the audit log keeps it.
 *
 * @param id       unique among events; with {@code at}, orders events
 * @param at       when the change was made
 * @param actor    who made it: a user's principal, or a name such as {@code declarations}
 * @param action   what was done, e.g. {@code set-limits}, {@code pause}, {@code delete-entity}
 * @param entityId the entity changed, or {@code null} for the system and resource levels
 * @param resource the resource changed ({@code _default_}: every resource of the entity), or {@code null} for the
 *                 system level and for changes of an entity record
 * @param before   the changed setting before, in words ({@code null}: not set)
 * @param after    the changed setting after, in words ({@code null}: not set any more)
 */
public record AuditEvent(String id, Instant at, String actor, String action, String entityId, String resource,
        String before, String after) {

    public AuditEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
    }

    /** The level the event changed. */
    public AuditScope scope() {
        if (entityId != null) {
            return resource == null ? AuditScope.ENTITY : AuditScope.ENTITY_RESOURCE;
        }
        return resource == null ? AuditScope.SYSTEM : AuditScope.RESOURCE;
    }

    /** A JSON-friendly form with stable keys. */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("id", id);
        map.put("at", at.toString());
        map.put("actor", actor);
        map.put("action", action);
        map.put("scope", scope().name().toLowerCase(java.util.Locale.ROOT));
        map.put("entity_id", entityId);
        map.put("resource", resource);
        map.put("before", before);
        map.put("after", after);
        return map;
    }
}
