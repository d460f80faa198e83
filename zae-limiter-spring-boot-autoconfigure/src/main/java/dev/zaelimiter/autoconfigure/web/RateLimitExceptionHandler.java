package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.NoLimitsConfiguredException;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.UnknownLimitException;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.autoconfigure.aop.RateLimitedEntityException;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a refusal that reaches Spring MVC (from a {@code @RateLimited} method or a direct
 * {@link dev.zaelimiter.RateLimiter#acquire} in a controller) the way {@link RateLimitFilter} does: 429 with
 * {@code Retry-After}, the IETF {@code RateLimit-Policy}/{@code RateLimit} headers and a problem body listing the
 * violated limits; 422 for a request that can never fit; 403 for a disabled resource; 400 when a
 * {@code @RateLimited} entity expression gives no entity or an invalid one; 503 with {@code Retry-After}
 * when the store is unavailable under {@code on-unavailable=block}; 500 when the resource has no limits at all. The bodies are Spring
 * {@link ProblemDetail}s built by {@link RateLimitProblems}, so Spring MVC writes them with the application's message
 * converters and fills {@code instance} as for its own problems. Ordered last, so that an application's own handler
 * for these exceptions wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(RateLimitExceptionHandler.class);

    private final boolean ietfHeaders;
    private final RateLimitProblems problems;
    private final WarningThrottle entityWarnings = new WarningThrottle();
    private final long unavailableRetryAfter;

    /** A handler with English details that include entity ids and balances. */
    public RateLimitExceptionHandler(boolean ietfHeaders) {
        this(ietfHeaders, new RateLimitProblems(null, true));
    }

    public RateLimitExceptionHandler(boolean ietfHeaders, RateLimitProblems problems) {
        this(ietfHeaders, problems, 1);
    }

    /** @param unavailableRetryAfter the {@code Retry-After} seconds of a 503 when the store is unavailable */
    public RateLimitExceptionHandler(boolean ietfHeaders, RateLimitProblems problems, long unavailableRetryAfter) {
        this.ietfHeaders = ietfHeaders;
        this.problems = problems;
        this.unavailableRetryAfter = Math.max(1, unavailableRetryAfter);
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException e, HttpServletResponse response) {
        String resource = e instanceof ResourcePausedException paused ? paused.resource()
                : e.statuses().isEmpty() ? "" : e.statuses().get(0).resource();
        RateLimitResponses.setTooManyRequestsHeaders(response, e, ietfHeaders);
        return answer(problems.tooManyRequests(e, resource, LocaleContextHolder.getLocale()));
    }

    @ExceptionHandler(UnsatisfiableRequestException.class)
    public ResponseEntity<ProblemDetail> unsatisfiable(UnsatisfiableRequestException e) {
        return answer(problems.unsatisfiable(e, e.resource(), LocaleContextHolder.getLocale()));
    }

    @ExceptionHandler(ResourceDisabledException.class)
    public ResponseEntity<ProblemDetail> disabled(ResourceDisabledException e) {
        return answer(problems.disabled(e.resource(), LocaleContextHolder.getLocale()));
    }

    @ExceptionHandler(StoreUnavailableException.class)
    public ResponseEntity<ProblemDetail> storeUnavailable(StoreUnavailableException e, HttpServletResponse response) {
        response.setHeader(RateLimitResponses.RETRY_AFTER, Long.toString(unavailableRetryAfter));
        return answer(problems.storeUnavailable(null, unavailableRetryAfter, LocaleContextHolder.getLocale()));
    }

    @ExceptionHandler(NoLimitsConfiguredException.class)
    public ResponseEntity<ProblemDetail> noLimits(NoLimitsConfiguredException e) {
        log.error("rate limiting cannot be applied, answering 500: {}", e.getMessage());
        return answer(problems.misconfigured(e.resource(), LocaleContextHolder.getLocale()));
    }

    /**
     * A {@code @RateLimited} entity expression that gave no entity or an invalid id from the request: 400 as the
     * filter answers, logged at most once every 10 seconds (the value is never logged or echoed).
     */
    @ExceptionHandler(RateLimitedEntityException.class)
    public ResponseEntity<ProblemDetail> badEntity(RateLimitedEntityException e) {
        if (entityWarnings.shouldLog()) {
            log.warn("answering 400 to a request whose entity expression '{}' on resource '{}' gave {} (logged at"
                    + " most every 10 s)", e.source(), e.resource(), e.missing() ? "no entity" : "an invalid id");
        }
        String source = "expression '" + e.source() + "'";
        return answer(e.missing() ? problems.missingEntity(e.resource(), source, LocaleContextHolder.getLocale())
                : problems.invalidEntity(e.resource(), source, LocaleContextHolder.getLocale()));
    }

    /** A call that consumes a limit its resource does not have: the declarations and the code disagree. */
    @ExceptionHandler(UnknownLimitException.class)
    public ResponseEntity<ProblemDetail> unknownLimit(UnknownLimitException e) {
        log.error("rate limiting cannot be applied, answering 500: {}", e.getMessage());
        return answer(problems.misconfigured(e.resource(), LocaleContextHolder.getLocale()));
    }

    private static ResponseEntity<ProblemDetail> answer(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }
}
