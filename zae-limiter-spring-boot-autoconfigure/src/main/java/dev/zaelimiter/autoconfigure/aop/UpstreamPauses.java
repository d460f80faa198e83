package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.RateLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Applies {@code @RateLimited(pauseOn = ...)}: a failure listed there pauses the annotation's resource for the
 * failure's retry-after. A pause that cannot be written is logged (and attached to the failure as suppressed), never
 * thrown in its place.
 */
final class UpstreamPauses {

    private static final Logger log = LoggerFactory.getLogger(UpstreamPauses.class);

    private UpstreamPauses() {
    }

    /** Whether any operation has pauseOn classes, so that calls without them skip the work. */
    static boolean any(RateLimitedMethod.Operation[] operations) {
        for (RateLimitedMethod.Operation operation : operations) {
            if (operation.pauseOn.length > 0) {
                return true;
            }
        }
        return false;
    }

    /** Pauses the resources whose annotations list {@code failure} (unwrapped from a future's wrappers). */
    static void after(RateLimiter limiter, RateLimitedMethod.Operation[] operations, Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause == null) {
            return;
        }
        for (RateLimitedMethod.Operation operation : operations) {
            Duration pause = operation.pauseFor(cause);
            if (pause == null || pause.isZero() || pause.isNegative()) {
                continue;
            }
            try {
                limiter.pauseForUpstream(operation.resource, pause);
                log.info("{} failed with {}: resource '{}' paused for {}", operation.where,
                        cause.getClass().getSimpleName(), operation.resource, pause);
            } catch (RuntimeException e) {
                cause.addSuppressed(e);
                log.warn("{}: could not pause resource '{}': {}", operation.where, operation.resource,
                        e.getMessage());
            }
        }
    }
}
