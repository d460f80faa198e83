package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ResourcePausedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.ProblemDetail;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * How the servlet filter and the MVC exception handler set the headers of {@link RateLimitHeaders} on a servlet
 * response, and how the filter writes a problem built by {@link RateLimitProblems} with the application's
 * {@code ObjectMapper}.
 */
final class RateLimitResponses {

    static final String RATE_LIMIT_POLICY = RateLimitHeaders.RATE_LIMIT_POLICY;
    static final String RATE_LIMIT = RateLimitHeaders.RATE_LIMIT;
    static final String RETRY_AFTER = RateLimitHeaders.RETRY_AFTER;
    static final String PROBLEM_JSON = RateLimitHeaders.PROBLEM_JSON;

    private RateLimitResponses() {
    }

    /** See {@link RateLimitHeaders#seconds}. */
    static long seconds(Duration duration) {
        return RateLimitHeaders.seconds(duration);
    }

    /** Sets the IETF headers of {@code statuses}; see {@link RateLimitHeaders#set}. */
    static void setHeaders(HttpServletResponse response, List<LimitStatus> statuses) {
        RateLimitHeaders.set(response::setHeader, statuses);
    }

    /** {@link #setHeaders(HttpServletResponse, List)} with a rule's {@link RateLimitHeaders.LastPolicy}. */
    static void setHeaders(HttpServletResponse response, List<LimitStatus> statuses,
            RateLimitHeaders.LastPolicy policies) {
        RateLimitHeaders.set(response::setHeader, statuses, policies);
    }

    /** Sets Retry-After and, when asked, the IETF headers of a 429. */
    static void setTooManyRequestsHeaders(HttpServletResponse response, RateLimitExceededException e,
            boolean headers) {
        response.setHeader(RETRY_AFTER, Long.toString(seconds(e.retryAfter())));
        if (headers && !(e instanceof ResourcePausedException)) {
            setHeaders(response, e.statuses());
        }
    }

    /**
     * Writes {@code problem} as {@code application/problem+json}, with {@code instance} set the way Spring MVC sets it
     * on its own problems (the request URI) unless it is set already.
     */
    static void write(HttpServletRequest request, HttpServletResponse response, ProblemDetail problem,
            Function<ProblemDetail, byte[]> writer) throws IOException {
        if (problem.getInstance() == null) {
            try {
                problem.setInstance(URI.create(request.getRequestURI()));
            } catch (IllegalArgumentException e) {
                // not a valid URI reference: leave instance out, as it is optional
            }
        }
        byte[] body = writer.apply(problem);
        response.setStatus(problem.getStatus());
        response.setContentType(PROBLEM_JSON);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
