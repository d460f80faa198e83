package dev.zaelimiter;

/** The level an {@link AuditEvent} changed. */
public enum AuditScope {
    /** The system defaults. */
    SYSTEM,
    /** A resource's defaults, switches and pauses. */
    RESOURCE,
    /** An entity record: creation, name, parent, cascade flag, deletion. */
    ENTITY,
    /** An entity on one resource (or on {@code _default_}, all of them). */
    ENTITY_RESOURCE
}
