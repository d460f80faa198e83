package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.NoLimitsConfiguredException;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.UnknownLimitException;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.autoconfigure.aop.RateLimitedEntityException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

import java.util.Locale;

/**
 * The WebFlux counterpart of {@link RateLimitExceptionHandler}: answers a refusal that reaches a WebFlux controller
 * (from a reactive {@code @RateLimited} method or a direct {@link dev.zaelimiter.RateLimiter#acquire}) as the filter
 * does, with the same statuses, headers and {@link ProblemDetail} bodies, which WebFlux writes with its codecs and
 * fills {@code instance} in. The headers travel on the {@code ResponseEntity}, which WebFlux sets over any the filter
 * set. Ordered last, so that an application's own handler for these exceptions wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ReactiveRateLimitExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ReactiveRateLimitExceptionHandler.class);

    private final boolean ietfHeaders;
    private final RateLimitProblems problems;
    private final WarningThrottle entityWarnings = new WarningThrottle();
    private final long unavailableRetryAfter;

    /** @param unavailableRetryAfter the {@code Retry-After} seconds of a 503 when the store is unavailable */
    public ReactiveRateLimitExceptionHandler(boolean ietfHeaders, RateLimitProblems problems,
            long unavailableRetryAfter) {
        this.ietfHeaders = ietfHeaders;
        this.problems = problems;
        this.unavailableRetryAfter = Math.max(1, unavailableRetryAfter);
    }

    /** The handler the auto-configurations register, from {@code zae.limiter.web.*}. */
    static ReactiveRateLimitExceptionHandler of(ZaeLimiterWebProperties properties,
            org.springframework.beans.factory.ObjectProvider<RateLimitProblems> problems,
            org.springframework.beans.factory.ObjectProvider<org.springframework.context.MessageSource> messageSource) {
        return new ReactiveRateLimitExceptionHandler(RateLimitHeaders.ietf(properties),
                RateLimitProblems.of(problems, messageSource, properties),
                RateLimitHeaders.unavailableRetryAfter(properties));
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException e, Locale locale) {
        String resource = e instanceof ResourcePausedException paused ? paused.resource()
                : e.statuses().isEmpty() ? "" : e.statuses().get(0).resource();
        HttpHeaders headers = new HttpHeaders();
        headers.set(RateLimitHeaders.RETRY_AFTER, Long.toString(RateLimitHeaders.seconds(e.retryAfter())));
        if (ietfHeaders && !(e instanceof ResourcePausedException)) {
            RateLimitHeaders.set(headers::set, e.statuses());
        }
        return answer(problems.tooManyRequests(e, resource, orDefault(locale)), headers);
    }

    @ExceptionHandler(UnsatisfiableRequestException.class)
    public ResponseEntity<ProblemDetail> unsatisfiable(UnsatisfiableRequestException e, Locale locale) {
        return answer(problems.unsatisfiable(e, e.resource(), orDefault(locale)), null);
    }

    @ExceptionHandler(ResourceDisabledException.class)
    public ResponseEntity<ProblemDetail> disabled(ResourceDisabledException e, Locale locale) {
        return answer(problems.disabled(e.resource(), orDefault(locale)), null);
    }

    @ExceptionHandler(StoreUnavailableException.class)
    public ResponseEntity<ProblemDetail> storeUnavailable(StoreUnavailableException e, Locale locale) {
        HttpHeaders headers = new HttpHeaders();
        headers.set(RateLimitHeaders.RETRY_AFTER, Long.toString(unavailableRetryAfter));
        return answer(problems.storeUnavailable(null, unavailableRetryAfter, orDefault(locale)), headers);
    }

    @ExceptionHandler(NoLimitsConfiguredException.class)
    public ResponseEntity<ProblemDetail> noLimits(NoLimitsConfiguredException e, Locale locale) {
        log.error("rate limiting cannot be applied, answering 500: {}", e.getMessage());
        return answer(problems.misconfigured(e.resource(), orDefault(locale)), null);
    }

    /**
     * A {@code @RateLimited} entity expression that gave no entity or an invalid id from the request: 400 as the
     * filter answers, logged at most once every 10 seconds (the value is never logged or echoed).
     */
    @ExceptionHandler(RateLimitedEntityException.class)
    public ResponseEntity<ProblemDetail> badEntity(RateLimitedEntityException e, Locale locale) {
        if (entityWarnings.shouldLog()) {
            log.warn("answering 400 to a request whose entity expression '{}' on resource '{}' gave {} (logged at"
                    + " most every 10 s)", e.source(), e.resource(), e.missing() ? "no entity" : "an invalid id");
        }
        String source = "expression '" + e.source() + "'";
        return answer(e.missing() ? problems.missingEntity(e.resource(), source, orDefault(locale))
                : problems.invalidEntity(e.resource(), source, orDefault(locale)), null);
    }

    /** A call that consumes a limit its resource does not have: the declarations and the code disagree. */
    @ExceptionHandler(UnknownLimitException.class)
    public ResponseEntity<ProblemDetail> unknownLimit(UnknownLimitException e, Locale locale) {
        log.error("rate limiting cannot be applied, answering 500: {}", e.getMessage());
        return answer(problems.misconfigured(e.resource(), orDefault(locale)), null);
    }

    /** The request's locale; WebFlux gives none when the request has no Accept-Language. */
    private static Locale orDefault(Locale locale) {
        return locale != null ? locale : Locale.getDefault();
    }

    private static ResponseEntity<ProblemDetail> answer(ProblemDetail problem, HttpHeaders headers) {
        return ResponseEntity.status(problem.getStatus()).headers(headers).body(problem);
    }
}
