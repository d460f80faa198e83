package dev.zaelimiter;

/**
 * A request costs more than a limit's capacity, so no amount of waiting could admit it. Distinct from
 * {@link RateLimitExceededException}, which always has a finite retry-after.
 */
public class UnsatisfiableRequestException extends RateLimiterException {

    private final String entityId;
    private final String resource;
    private final String limitName;
    private final long capacity;
    private final long requested;

    public UnsatisfiableRequestException(String entityId, String resource, String limitName, long capacity,
            long requested) {
        super("request for " + requested + " of limit '" + limitName + "' can never be admitted: entity '" + entityId
                + "' on resource '" + resource + "' has a capacity of " + capacity);
        this.entityId = entityId;
        this.resource = resource;
        this.limitName = limitName;
        this.capacity = capacity;
        this.requested = requested;
    }

    public String entityId() {
        return entityId;
    }

    public String resource() {
        return resource;
    }

    public String limitName() {
        return limitName;
    }

    public long capacity() {
        return capacity;
    }

    public long requested() {
        return requested;
    }
}
