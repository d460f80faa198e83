package dev.zaelimiter;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one entity did with one limit on one resource over a period (an hour, a day, or the window of a top-N query).
 *
 * @param entityId  the entity
 * @param resource  the resource
 * @param limitName the limit
 * @param from      start of the period, inclusive
 * @param to        end of the period, exclusive
 * @param consumed  net tokens consumed: amounts admitted plus adjustments, minus rollbacks (bypassed calls excluded)
 * @param admitted  calls admitted (bypassed and degraded ones included)
 * @param refused   calls refused by a hard limit of the bucket
 * @param overdrawn calls admitted that left this soft limit in debt (as {@link Lease#overdrawn()} reports them)
 * @param bypassed  tokens of calls admitted in bypass mode, counted and not debited
 * @param degraded  tokens of calls admitted without the store, which was unavailable, under
 *                  {@link Unavailable#ALLOW} (as {@link Lease#degraded()} reports them): counted by the limiter that
 *                  admitted them, and not debited
 */
public record Usage(String entityId, String resource, String limitName, Instant from, Instant to, long consumed,
        long admitted, long refused, long overdrawn, long bypassed, long degraded) {

    /** A JSON-friendly form with stable keys. */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("entity_id", entityId);
        map.put("resource", resource);
        map.put("limit", limitName);
        map.put("from", from.toString());
        map.put("to", to.toString());
        map.put("consumed", consumed);
        map.put("admitted", admitted);
        map.put("refused", refused);
        map.put("overdrawn", overdrawn);
        map.put("bypassed", bypassed);
        map.put("degraded", degraded);
        return map;
    }
}
