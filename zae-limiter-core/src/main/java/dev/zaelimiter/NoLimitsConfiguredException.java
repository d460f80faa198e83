package dev.zaelimiter;

/** No configuration level (entity, entity default, resource, system) and no per-call override defines any limit. */
public class NoLimitsConfiguredException extends RateLimiterException {

    private final String entityId;
    private final String resource;

    public NoLimitsConfiguredException(String entityId, String resource) {
        super("no limits configured for entity '" + entityId + "' on resource '" + resource
                + "': set entity limits, resource defaults or system defaults, or pass limits with the request");
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
