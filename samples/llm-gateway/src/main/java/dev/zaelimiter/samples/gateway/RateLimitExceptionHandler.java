package dev.zaelimiter.samples.gateway;

import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.UnsatisfiableRequestException;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Turns a refusal by a {@code @RateLimited} method into the same answer the HTTP filter gives: 429 with
 * {@code Retry-After}, the IETF {@code RateLimit-Policy} and {@code RateLimit} headers, and a problem+json body
 * listing the violated limits. (The filter's own refusals never reach Spring MVC.)
 */
@RestControllerAdvice
public class RateLimitExceptionHandler {

    private static final URI QUOTA_EXCEEDED =
            URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

    @ExceptionHandler
    public ProblemDetail tooManyRequests(RateLimitExceededException e, HttpServletResponse response) {
        long retryAfter = seconds(e.retryAfter());
        response.setHeader("Retry-After", Long.toString(retryAfter));
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, e.getMessage());
        problem.setType(QUOTA_EXCEEDED);
        problem.setProperty("retry_after", retryAfter);
        if (e.statuses().isEmpty()) {
            return problem;   // a pause (ResourcePausedException): no limit to report
        }
        String entity = e.statuses().get(0).entityId();
        String resource = e.statuses().get(0).resource();
        List<String> violated = e.violations().stream().map(s -> policy(s, entity)).toList();
        problem.setDetail((violated.size() == 1 ? "Limit '" : "Limits '") + String.join("', '", violated)
                + "' on resource '" + resource + "' cannot admit this request; retry after " + retryAfter
                + (retryAfter == 1 ? " second." : " seconds."));
        problem.setProperty("resource", resource);
        problem.setProperty("violated-policies", violated);
        problem.setProperty("violations", e.violations().stream().map(s -> violation(s, entity)).toList());

        // setHeader, not ResponseEntity headers: these replace the ones the filter set for its own resource
        List<LimitStatus> hard = e.statuses().stream().filter(s -> !s.soft()).toList();
        response.setHeader("RateLimit-Policy", hard.stream()
                .map(s -> '"' + policy(s, entity) + "\";q=" + s.capacity())
                .collect(Collectors.joining(", ")));
        response.setHeader("RateLimit", hard.stream()
                .map(s -> '"' + policy(s, entity) + "\";r=" + Math.max(0, s.available())
                        + (s.exceeded() ? ";t=" + seconds(s.retryAfter()) : ""))
                .collect(Collectors.joining(", ")));
        return problem;
    }

    private static Map<String, Object> violation(LimitStatus s, String entity) {
        Map<String, Object> violation = new LinkedHashMap<>();
        violation.put("policy", policy(s, entity));
        violation.put("entity", s.entityId());
        violation.put("resource", s.resource());
        violation.put("limit", s.limitName());
        violation.put("capacity", s.capacity());
        violation.put("available", s.available());
        violation.put("requested", s.requested());
        violation.put("retry_after", seconds(s.retryAfter()));
        return violation;
    }

    /** A request for more tokens than a limit holds: no wait could admit it, so 422 rather than 429. */
    @ExceptionHandler
    public ProblemDetail unsatisfiable(UnsatisfiableRequestException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNPROCESSABLE_ENTITY,
                "The request needs " + e.requested() + " tokens of limit '" + e.limitName() + "', more than its"
                        + " capacity of " + e.capacity() + "; lower max_tokens.");
        problem.setProperty("limit", e.limitName());
        problem.setProperty("capacity", e.capacity());
        problem.setProperty("requested", e.requested());
        return problem;
    }

    /** The key's limits by name, its organisation's (reached through the cascade) as {@code parent.<name>}. */
    private static String policy(LimitStatus status, String entity) {
        return status.entityId().equals(entity) ? status.limitName() : "parent." + status.limitName();
    }

    /** Whole seconds, rounded up, at least 1. */
    private static long seconds(Duration duration) {
        return Math.max(1, (duration.toMillis() + 999) / 1000);
    }
}
