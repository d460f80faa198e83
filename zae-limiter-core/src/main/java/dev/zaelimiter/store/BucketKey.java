package dev.zaelimiter.store;

import java.util.Objects;

/** Identifies one bucket: all limits of one entity on one resource. */
public record BucketKey(String entityId, String resource) implements Comparable<BucketKey> {

    /**
     * Written out (the value a record's would have) so that a lookup's compiled code stays small enough for the JIT
     * to inline it: a record's generated one goes through method handles.
     */
    @Override
    public int hashCode() {
        return 31 * Objects.hashCode(entityId) + Objects.hashCode(resource);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof BucketKey other && Objects.equals(entityId, other.entityId)
                && Objects.equals(resource, other.resource);
    }

    @Override
    public int compareTo(BucketKey o) {
        int c = entityId.compareTo(o.entityId);
        return c != 0 ? c : resource.compareTo(o.resource);
    }
}
