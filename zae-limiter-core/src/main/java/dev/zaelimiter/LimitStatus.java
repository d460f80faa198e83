package dev.zaelimiter;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome of one limit of one entity in one decision.
 *
 * @param entityId   whose bucket
 * @param resource   on which resource
 * @param limitName  which limit
 * @param capacity   the limit's capacity in tokens
 * @param available  whole tokens available (after the debit when admitted, before it when rejected); negative in debt
 * @param requested  tokens the call asked of this limit
 * @param exceeded   whether this limit refused the call; never true for a soft limit
 * @param soft       whether the limit is metered only
 * @param retryAfter how long until this limit could admit the request; zero unless exceeded
 */
public record LimitStatus(String entityId, String resource, String limitName, long capacity, long available,
        long requested, boolean exceeded, boolean soft, Duration retryAfter) {

    /** A soft limit whose balance is in debt. */
    public boolean overdrawn() {
        return soft && available < 0;
    }

    /** A JSON-friendly form with stable keys; {@code retry_after_ms} in milliseconds. */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("entity_id", entityId);
        map.put("resource", resource);
        map.put("limit", limitName);
        map.put("capacity", capacity);
        map.put("available", available);
        map.put("requested", requested);
        map.put("exceeded", exceeded);
        map.put("soft", soft);
        map.put("retry_after_ms", retryAfter.toMillis());
        return map;
    }
}
