package dev.zaelimiter.autoconfigure;

import org.springframework.lang.Nullable;

/**
 * Names who is making a change right now, for the audit log of the auto-configured limiter: for example the
 * principal of the current request. Every bean of this type is asked in order; the first name wins, and when none
 * answers the change is attributed to {@code zae.limiter.audit.actor} (the application name when unset). With Spring
 * Security on the class path, one such bean reads the current {@code SecurityContext}.
 */
@FunctionalInterface
public interface AuditActor {

    /** Who is acting now, or {@code null} when this bean cannot tell. */
    @Nullable
    String currentActor();
}
