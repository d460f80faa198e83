package dev.zaelimiter;

import dev.zaelimiter.store.AuditStore;
import dev.zaelimiter.store.ConfigScope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Writes the audit events of a limiter's changes to the store's audit log, naming the actor its supplier gives. A
 * store without an audit log records nothing. An event that cannot be written is logged: the change itself was made.
 */
final class AuditLog {

    /** The actor named when none is configured or the supplier has none. */
    static final String DEFAULT_ACTOR = "application";

    private static final Logger log = LoggerFactory.getLogger(AuditLog.class);

    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final String PROCESS = UUID.randomUUID().toString().substring(0, 13);

    private final AuditStore store;
    private final Clock clock;
    private final Supplier<String> actor;

    AuditLog(AuditStore store, Clock clock, Supplier<String> actor) {
        this.store = store;
        this.clock = clock;
        this.actor = actor;
    }

    AuditStore store() {
        return store;
    }

    /** The same log, naming {@code actor} for every event. */
    AuditLog as(String actor) {
        return new AuditLog(store, clock, () -> actor);
    }

    /** Records a change of one configuration level. */
    void record(String action, ConfigScope scope, String before, String after) {
        record(action, scope.entityId(), scope.resource(), before, after);
    }

    /** Records a change; {@code entityId} and {@code resource} name its scope as {@link AuditEvent} does. */
    void record(String action, String entityId, String resource, String before, String after) {
        if (store == null) {
            return;
        }
        AuditEvent event = new AuditEvent(nextId(), clock.instant(), actor(), action, entityId,
                resource, before, after);
        try {
            store.append(event);
        } catch (RuntimeException e) {
            log.warn("audit event not recorded: {} ({})", event, e.getMessage());
        }
    }

    /** An id that sorts after every earlier one of this process, and is unique across processes. */
    private static String nextId() {
        return String.format("%012x-%s", SEQUENCE.incrementAndGet(), PROCESS);
    }

    private String actor() {
        String name;
        try {
            name = actor.get();
        } catch (RuntimeException e) {
            name = null;
        }
        return name == null || name.isBlank() ? DEFAULT_ACTOR : name;
    }
}
