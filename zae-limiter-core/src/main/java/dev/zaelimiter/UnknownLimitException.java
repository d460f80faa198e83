package dev.zaelimiter;

import java.util.Collection;

/** A consume or adjust names a limit that the configuration resolved for this call does not have. */
public class UnknownLimitException extends ValidationException {

    public UnknownLimitException(String entityId, String resource, String limitName, Collection<String> known) {
        super("consume." + limitName, limitName,
                "entity '" + entityId + "' on resource '" + resource + "' has no limit named '" + limitName
                        + "' (its limits are " + known + ")");
    }
}
