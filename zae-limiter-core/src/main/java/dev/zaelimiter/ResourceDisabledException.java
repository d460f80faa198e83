package dev.zaelimiter;

/** The resource is switched off ({@link DisabledMode#DISABLED}) for this entity. */
public class ResourceDisabledException extends RateLimiterException {

    private final String entityId;
    private final String resource;

    public ResourceDisabledException(String entityId, String resource) {
        super("resource '" + resource + "' is disabled for entity '" + entityId + "'");
        this.entityId = entityId;
        this.resource = resource;
    }

    public String entityId() {
        return entityId;
    }

    public String resource() {
        return resource;
    }
}
