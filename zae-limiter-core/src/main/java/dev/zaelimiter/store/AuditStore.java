package dev.zaelimiter.store;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;

/**
 * The audit log of a store, reached through {@link LimiterStore#audit()}. Implementations must be thread-safe and
 * raise {@link dev.zaelimiter.StoreUnavailableException} for transport failures.
 */
public interface AuditStore {

    /** Keeps {@code event}. */
    void append(AuditEvent event);

    /** The events {@code query} asks for, newest first (by {@link AuditQuery#sortKey}), after its cursor. */
    AuditPage read(AuditQuery query);
}
