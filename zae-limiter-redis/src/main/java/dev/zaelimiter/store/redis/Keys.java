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
}
