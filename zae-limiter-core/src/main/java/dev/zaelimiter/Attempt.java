package dev.zaelimiter;

import java.time.Duration;
import java.util.List;

/**
 * What {@link RateLimiter#tryAcquire} decided, without raising for a refusal: an admitted call's {@link Lease} (every
 * lease is an attempt that was admitted), or a refusal that says when to try again.
 *
 * <pre>{@code
 * Attempt attempt = limiter.tryAcquire("user-1", "gpt-4", Map.of("rpm", 1L));
 * if (!attempt.admitted()) {
 *     return tooManyRequests(attempt.retryAfter());
 * }
 * try (Lease lease = attempt.lease()) {
 *     // call the model
 * }
 * }</pre>
 */
public sealed interface Attempt permits Lease, Refusal {

    /** Whether the call was admitted; its tokens are then taken. */
    boolean admitted();

    /**
     * The lease of the admitted call.
     *
     * @throws RateLimitExceededException the refusal, as {@link RateLimiter#acquire} would have raised it, when the
     *                                    call was refused ({@link ResourcePausedException} for a pause)
     */
    Lease lease();

    /**
     * The refusal as the exception {@link #lease()} raises, without raising it (for code that reports refusals
     * as it reports raised ones); {@code null} when the call was admitted.
     */
    RateLimitExceededException refusal();

    /** How long until the same call could be admitted, if nothing else changed the buckets; zero when admitted. */
    Duration retryAfter();

    /**
     * The status of every limit checked: after the debit when admitted, before it when refused (see
     * {@link Lease#statuses()} and {@link RateLimitExceededException#statuses()}).
     */
    List<LimitStatus> statuses();
}
