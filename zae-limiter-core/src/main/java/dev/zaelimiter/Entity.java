package dev.zaelimiter;

import dev.zaelimiter.internal.Identifiers;
import java.util.Optional;

/**
 * Who is limited: an API key, a user, a tenant. An entity needs no record to be limited (configuration defaults
 * apply to any id); a record is what gives it a name, a parent and the cascade flag.
 *
 * @param id       the entity id
 * @param name     a display name of at most {@value Identifiers#MAX_DISPLAY_NAME} characters, or {@code null}
 * @param parentId the parent's id, or {@code null} for a root entity
 * @param cascade  whether acquires also spend the parent's limits, unless a per-resource policy says otherwise
 */
public record Entity(String id, String name, String parentId, boolean cascade) {

    public Entity {
        Identifiers.entityId("entityId", id);
        Identifiers.displayName("name", name);
        if (parentId != null) {
            Identifiers.entityId("parentId", parentId);
            if (parentId.equals(id)) {
                throw new ValidationException("parentId", parentId, "an entity cannot be its own parent");
            }
        }
    }

    /** A root entity with no name. */
    public static Entity of(String id) {
        return new Entity(id, null, null, false);
    }

    /** The same entity with a display name. */
    public Entity withName(String name) {
        return new Entity(id, name, parentId, cascade);
    }

    /** The same entity under {@code parentId} (or at the root, for {@code null}). */
    public Entity withParent(String parentId) {
        return new Entity(id, name, parentId, cascade);
    }

    /** The same entity with the cascade flag set. */
    public Entity withCascade(boolean cascade) {
        return new Entity(id, name, parentId, cascade);
    }

    public Optional<String> parent() {
        return Optional.ofNullable(parentId);
    }
}
