package dev.zaelimiter.store;

/** Identifies one bucket: all limits of one entity on one resource. */
public record BucketKey(String entityId, String resource) implements Comparable<BucketKey> {

    @Override
    public int compareTo(BucketKey o) {
        int c = entityId.compareTo(o.entityId);
        return c != 0 ? c : resource.compareTo(o.resource);
    }
}
