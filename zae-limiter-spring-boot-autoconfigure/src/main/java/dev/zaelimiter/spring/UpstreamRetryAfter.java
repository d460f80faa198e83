package dev.zaelimiter.spring;

import java.time.Duration;

/**
 * An exception by which an upstream asks its callers to wait, such as a provider client's "429 Too Many Requests"
 * exception carrying the {@code Retry-After}. Listed in {@link RateLimited#pauseOn()}, it pauses the annotation's
 * resource for {@link #retryAfter()} in every process sharing the store.
 */
public interface UpstreamRetryAfter {

    /** How long the upstream asked to wait; zero or negative asks for no pause. */
    Duration retryAfter();
}
