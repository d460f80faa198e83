package dev.zaelimiter.internal.resolution;

/** Which level supplied the limits of a call. */
public enum LimitSource {
    /** Passed with the request, for that call only. */
    OVERRIDE,
    /** The entity's configuration for this resource. */
    ENTITY_RESOURCE,
    /** The entity's configuration for every resource. */
    ENTITY_DEFAULT,
    /** The resource defaults. */
    RESOURCE,
    /** The system defaults. */
    SYSTEM,
    /** No level defines limits. */
    NONE;

    /** Whether the limits are shared defaults rather than the entity's own. */
    public boolean isDefault() {
        return this == RESOURCE || this == SYSTEM;
    }
}
