package dev.zaelimiter;

import java.util.Collection;

/** A consume or adjust names a limit that the configuration resolved for this call does not have. */
public class UnknownLimitException extends ValidationException {

    private final String entityId;
    private final String resource;
    private final String limitName;

    public UnknownLimitException(String entityId, String resource, String limitName, Collection<String> known) {
        super("consume." + limitName, limitName,
                "entity '" + entityId + "' on resource '" + resource + "' has no limit named '" + limitName
                        + "' (its limits are " + known + ")");
        this.entityId = entityId;
        this.resource = resource;
        this.limitName = limitName;
    }

    public String entityId() {
        return entityId;
    }

    public String resource() {
        return resource;
    }

    /** The limit the call named. */
    public String limitName() {
        return limitName;
    }
}
