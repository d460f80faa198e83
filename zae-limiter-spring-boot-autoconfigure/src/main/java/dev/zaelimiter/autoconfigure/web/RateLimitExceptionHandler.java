package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.UnsatisfiableRequestException;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

import java.io.IOException;

/**
 * Answers a refusal that reaches Spring MVC (from a {@code @RateLimited} method or a direct
 * {@link dev.zaelimiter.RateLimiter#acquire} in a controller) the way {@link RateLimitFilter} does: 429 with
 * {@code Retry-After}, the IETF {@code RateLimit-Policy}/{@code RateLimit} headers and a problem body listing the
 * violated limits; 422 for a request that can never fit; 403 for a disabled resource. Ordered last, so that an
 * application's own handler for these exceptions wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceptionHandler {

    private final boolean ietfHeaders;

    public RateLimitExceptionHandler(boolean ietfHeaders) {
        this.ietfHeaders = ietfHeaders;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public void tooManyRequests(RateLimitExceededException e, HttpServletResponse response) throws IOException {
        String resource = e instanceof ResourcePausedException paused ? paused.resource()
                : e.statuses().isEmpty() ? "" : e.statuses().get(0).resource();
        RateLimitResponses.tooManyRequests(response, e, resource, ietfHeaders);
    }

    @ExceptionHandler(UnsatisfiableRequestException.class)
    public void unsatisfiable(UnsatisfiableRequestException e, HttpServletResponse response) throws IOException {
        RateLimitResponses.write(response, 422, RateLimitResponses.problem(422, "Unprocessable Content",
                "The request needs " + e.requested() + " tokens of limit '" + e.limitName() + "' on resource '"
                        + e.resource() + "', more than its capacity of " + e.capacity() + ", so no wait could admit it.")
                .field("resource", e.resource())
                .field("limit", e.limitName())
                .field("capacity", e.capacity())
                .field("requested", e.requested()));
    }

    @ExceptionHandler(ResourceDisabledException.class)
    public void disabled(ResourceDisabledException e, HttpServletResponse response) throws IOException {
        RateLimitResponses.write(response, 403, RateLimitResponses.problem(403, "Forbidden",
                "Resource '" + e.resource() + "' is disabled for this caller.").field("resource", e.resource()));
    }
}
