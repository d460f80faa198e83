package dev.zaelimiter;

/** {@code createEntity} was called for an id that is already taken. */
public class EntityExistsException extends RateLimiterException {

    private final String entityId;

    public EntityExistsException(String entityId) {
        super("entity '" + entityId + "' already exists");
        this.entityId = entityId;
    }

    public String entityId() {
        return entityId;
    }
}
