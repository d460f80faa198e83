package dev.zaelimiter.store.redis;

import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;

import java.util.function.UnaryOperator;

/**
 * The Redis keys of one store, all under its prefix. {@code #} separates the parts: no entity id, resource or
 * limit name can hold it. On Redis Cluster every key but the buckets starts with the prefix as a hash tag
 * ({@code {p}}), so that configuration, usage and audit share one slot and each script's keys are in it; a bucket
 * ends with the hash tag of its entity's tree ({@code #{tree}}: the entity's parent, or the entity itself when it has
 * none), so that a cascade's child and parent share a slot while trees spread over the cluster.
 */
final class Keys {

    private final String prefix;
    private final String config;
    private final UnaryOperator<String> tree;

    /**
     * Keys for a standalone Redis ({@code tree} null) or a cluster, where {@code tree} gives the tree an entity's
     * buckets belong to.
     */
    Keys(String prefix, UnaryOperator<String> tree) {
        this.prefix = prefix;
        this.config = tree == null ? prefix : "{" + prefix + "}";
        this.tree = tree;
    }

    String prefix() {
        return prefix;
    }

    /** The configuration version: every change of a level or an entity adds one. */
    String configVersion() {
        return config + "#CV";
    }

    String level(ConfigScope scope) {
        if (scope.isSystem()) {
            return config + "#SYS";
        }
        if (scope.isResource()) {
            return config + "#R#" + scope.resource();
        }
        return entity(scope.entityId()) + "#C#" + scope.resource();
    }

    String entity(String entityId) {
        return config + "#E#" + entityId;
    }

    /** The resources {@code entityId} has a configuration level on. */
    String entityScopes(String entityId) {
        return entity(entityId) + "#S";
    }

    /** The ids of the entities whose parent is {@code parentId}. */
    String children(String parentId) {
        return config + "#P#" + parentId;
    }

    String bucket(BucketKey key) {
        String bucket = prefix + "#E#" + key.entityId() + "#B#" + key.resource();
        return tree == null ? bucket : bucket + "#{" + tree.apply(key.entityId()) + "}";
    }

    /** A pattern matching every bucket of {@code entityId} (no id holds a glob character). */
    String bucketsOf(String entityId) {
        return prefix + "#E#" + entityId + "#B#*";
    }

    /** The prefix of usage periods of one granularity ({@code H} or {@code D}): the period's name follows. */
    String usagePeriods(String granularity) {
        return config + "#U#" + granularity + "#";
    }

    /** The usage periods of {@code resource} (a sorted set by start). */
    String usageOfResource(String granularity, String resource) {
        return config + "#UR#" + granularity + "#" + resource;
    }

    /** The usage periods of {@code entityId} on every resource (a sorted set by start). */
    String usageOfEntity(String granularity, String entityId) {
        return config + "#UE#" + granularity + "#" + entityId;
    }

    /** The prefix of audit events: the event's sort key follows. */
    String auditEvents() {
        return config + "#AE#";
    }

    /** Every audit event (a sorted set of sort keys). */
    String auditAll() {
        return config + "#A";
    }

    String auditSystem() {
        return config + "#A#S";
    }

    String auditResource(String resource) {
        return config + "#A#R#" + resource;
    }

    /** The events of an entity: its record and its levels on every resource. */
    String auditEntity(String entityId) {
        return config + "#A#E#" + entityId;
    }
}
