package dev.zaelimiter.store.redis;

import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;

/**
 * The Redis keys of one store, all under its prefix. {@code #} separates the parts: no entity id, resource or
 * limit name can hold it.
 */
record Keys(String prefix) {

    /** The configuration version: every change of a level or an entity adds one. */
    String configVersion() {
        return prefix + "#CV";
    }

    String level(ConfigScope scope) {
        if (scope.isSystem()) {
            return prefix + "#SYS";
        }
        if (scope.isResource()) {
            return prefix + "#R#" + scope.resource();
        }
        return entity(scope.entityId()) + "#C#" + scope.resource();
    }

    String entity(String entityId) {
        return prefix + "#E#" + entityId;
    }

    /** The resources {@code entityId} has a configuration level on. */
    String entityScopes(String entityId) {
        return entity(entityId) + "#S";
    }

    /** The ids of the entities whose parent is {@code parentId}. */
    String children(String parentId) {
        return prefix + "#P#" + parentId;
    }

    String bucket(BucketKey key) {
        return entity(key.entityId()) + "#B#" + key.resource();
    }

    /** A pattern matching every bucket of {@code entityId} (no id holds a glob character). */
    String bucketsOf(String entityId) {
        return entity(entityId) + "#B#*";
    }

    /** The prefix of usage periods of one granularity ({@code H} or {@code D}): the period's name follows. */
    String usagePeriods(String granularity) {
        return prefix + "#U#" + granularity + "#";
    }

    /** The usage periods of {@code resource} (a sorted set by start). */
    String usageOfResource(String granularity, String resource) {
        return prefix + "#UR#" + granularity + "#" + resource;
    }

    /** The usage periods of {@code entityId} on every resource (a sorted set by start). */
    String usageOfEntity(String granularity, String entityId) {
        return prefix + "#UE#" + granularity + "#" + entityId;
    }

    /** The prefix of audit events: the event's sort key follows. */
    String auditEvents() {
        return prefix + "#AE#";
    }

    /** Every audit event (a sorted set of sort keys). */
    String auditAll() {
        return prefix + "#A";
    }

    String auditSystem() {
        return prefix + "#A#S";
    }

    String auditResource(String resource) {
        return prefix + "#A#R#" + resource;
    }

    /** The events of an entity: its record and its levels on every resource. */
    String auditEntity(String entityId) {
        return prefix + "#A#E#" + entityId;
    }
}
