package dev.zaelimiter;

import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.LimiterStore;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The pauses and resumes behind {@link RateLimiter}'s {@code pause}, {@code pauseFromRetryAfter},
 * {@code pauseForUpstream} and {@code resume}: validated, written to the store, and recorded in the audit log.
 */
final class Pauses {

    /** Who the pauses asked by an upstream provider are attributed to in the audit log. */
    static final String UPSTREAM_ACTOR = "upstream";

    private final LimiterStore store;
    private final Clock clock;
    private final RateLimiterAdmin admin;
    private final AuditLog audit;

    Pauses(LimiterStore store, Clock clock, RateLimiterAdmin admin, AuditLog audit) {
        this.store = store;
        this.clock = clock;
        this.admin = admin;
        this.audit = audit;
    }

    /** The scope of every call on {@code resource}, validated. */
    static ConfigScope of(String resource) {
        return ConfigScope.resource(Identifiers.resource("resource", resource));
    }

    /** The scope of {@code entityId}'s calls on {@code resource}, validated. */
    static ConfigScope of(String entityId, String resource) {
        return ConfigScope.entity(Identifiers.entityId("entityId", entityId),
                Identifiers.resource("resource", resource));
    }

    /** Pauses {@code scope} for {@code duration}, attributed to whoever is signed in; returns when it ends. */
    Instant pause(ConfigScope scope, Duration duration) {
        return pauseUntil(scope, duration, audit);
    }

    /** Pauses {@code scope} for {@code duration}, attributed to {@value #UPSTREAM_ACTOR}. */
    Instant pauseForUpstream(ConfigScope scope, Duration duration) {
        return pauseUntil(scope, duration, audit.as(UPSTREAM_ACTOR));
    }

    /**
     * Pauses the scope {@code scope} names as a {@code Retry-After} value asks, attributed to {@value #UPSTREAM_ACTOR};
     * empty, with the scope's names not even read, when it asks for no wait.
     */
    Optional<Instant> pauseFromRetryAfter(Supplier<ConfigScope> scope, String retryAfter) {
        Duration wait = RetryAfter.parse(retryAfter, clock.instant());
        if (wait.isZero() || wait.isNegative()) {
            return Optional.empty();
        }
        return Optional.of(pauseForUpstream(scope.get(), wait));
    }

    /** Ends the pause of {@code scope}; its audit event keeps the pause it ended as its {@code before}. */
    void resume(ConfigScope scope) {
        String before = admin.before(scope, level -> level.pausedUntil() == null ? null
                : pausedUntil(Instant.ofEpochMilli(level.pausedUntil())));
        store.putPause(scope, null);
        audit.record("resume", scope, before, null);
    }

    private static String pausedUntil(Instant until) {
        return "paused until " + until;
    }

    private Instant pauseUntil(ConfigScope scope, Duration duration, AuditLog audit) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new ValidationException("duration", duration, "a pause lasts more than zero");
        }
        Instant until;
        try {
            until = clock.instant().plus(duration);
            until.toEpochMilli();
        } catch (ArithmeticException | DateTimeException e) {
            throw new ValidationException("duration", duration, "a pause must end at an instant that epoch"
                    + " milliseconds can hold (within about 292 million years)");
        }
        store.putPause(scope, until.toEpochMilli());
        audit.record("pause", scope, null, pausedUntil(until));
        return until;
    }
}
