package dev.zaelimiter;

/**
 * Whether limits are enforced for an entity on a resource. Set per resource, per entity, or per entity on one
 * resource; the most specific explicit value wins and an unset value enforces.
 */
public enum DisabledMode {
    /** Enforce the limits. */
    ENABLED,
    /** Refuse every call with {@link ResourceDisabledException}. */
    DISABLED,
    /** Admit every call without debiting any balance; consumption is still counted. */
    BYPASS
}
