package dev.zaelimiter.store;

import dev.zaelimiter.internal.Identifiers;

/**
 * One level of the configuration hierarchy: the system, one resource, or one entity on one resource (or on
 * {@link Identifiers#DEFAULT_RESOURCE}, every resource).
 *
 * @param entityId the entity, or {@code null} for the system and resource levels
 * @param resource the resource, or {@code null} for the system level
 */
public record ConfigScope(String entityId, String resource) {

    private static final ConfigScope SYSTEM = new ConfigScope(null, null);

    public ConfigScope {
        if (entityId != null && resource == null) {
            throw new IllegalArgumentException("an entity scope needs a resource");
        }
    }

    public static ConfigScope system() {
        return SYSTEM;
    }

    public static ConfigScope resource(String resource) {
        return new ConfigScope(null, resource);
    }

    public static ConfigScope entity(String entityId, String resource) {
        return new ConfigScope(entityId, resource);
    }

    public boolean isSystem() {
        return resource == null;
    }

    public boolean isResource() {
        return entityId == null && resource != null;
    }

    public boolean isEntity() {
        return entityId != null;
    }

    @Override
    public String toString() {
        return isSystem() ? "system" : isResource() ? "resource " + resource : "entity " + entityId + " on " + resource;
    }
}
