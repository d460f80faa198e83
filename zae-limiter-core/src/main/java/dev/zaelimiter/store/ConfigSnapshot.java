package dev.zaelimiter.store;

import dev.zaelimiter.Entity;
import dev.zaelimiter.internal.resolution.ConfigResolver;

import java.util.Objects;

/**
 * Everything needed to resolve one entity on one resource, read in one store call.
 *
 * @param entity         the entity record, or {@code null} when the entity has none
 * @param entityResource the entity's level for this resource
 * @param entityDefault  the entity's level for every resource
 * @param resource       the resource level
 * @param system         the system level
 */
public record ConfigSnapshot(Entity entity, LevelConfig entityResource, LevelConfig entityDefault,
        LevelConfig resource, LevelConfig system) {

    public ConfigSnapshot {
        Objects.requireNonNull(entityResource, "entityResource");
        Objects.requireNonNull(entityDefault, "entityDefault");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(system, "system");
    }

    /**
     * The parent a call on this entity and resource also debits, or {@code null}: the first cascade policy of the
     * entity on the resource, the entity default and the resource; without one, the entity's own flag. An entity
     * without a parent never cascades.
     */
    public String cascadeParent() {
        return ConfigResolver.cascadeParent(this);
    }
}
