package dev.zaelimiter;

/** An operation needs an entity record that does not exist. */
public class EntityNotFoundException extends RateLimiterException {

    private final String entityId;

    public EntityNotFoundException(String entityId) {
        super("entity '" + entityId + "' does not exist");
        this.entityId = entityId;
    }

    public String entityId() {
        return entityId;
    }
}
