package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.NoLimitsConfiguredException;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ProblemDetail;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What the servlet and the WebFlux filter answer when a rule refuses a request: the problem, built by
 * {@link RateLimitProblems}, and the headers to send with it. Logs store outages and misconfigured rules at most once
 * every 10 seconds. Thread-safe.
 */
final class RateLimitRefusals {

    private static final Logger log = LoggerFactory.getLogger(RateLimitRefusals.class);

    /** A refusal: its problem (whose status is the response's) and its headers, in order. */
    record Refusal(ProblemDetail problem, Map<String, String> headers) {
    }

    private final RateLimitProblems problems;
    private final boolean ietfHeaders;
    private final long unavailableRetryAfter;
    private final WarningThrottle warnings = new WarningThrottle();

    RateLimitRefusals(RateLimitProblems problems, boolean ietfHeaders, long unavailableRetryAfter) {
        this.problems = Objects.requireNonNull(problems, "problems");
        this.ietfHeaders = ietfHeaders;
        this.unavailableRetryAfter = unavailableRetryAfter;
    }

    /** Whether {@code failure} of an acquire is a refusal this class answers (else it is rethrown). */
    static boolean isRefusal(Throwable failure) {
        return failure instanceof RateLimitExceededException || failure instanceof ResourceDisabledException
                || failure instanceof UnsatisfiableRequestException || failure instanceof StoreUnavailableException
                || failure instanceof ValidationException || failure instanceof NoLimitsConfiguredException;
    }

    /** The request carries no entity and the rule has no default: 400. */
    Refusal missingEntity(RateLimitRule rule, Locale locale) {
        return new Refusal(problems.missingEntity(rule.resource(), rule.sourceDescription(), locale), Map.of());
    }

    /**
     * The answer to {@code failure}, one of the {@linkplain #isRefusal refusals}, of an acquire under {@code rule}.
     */
    Refusal of(RateLimitRule rule, RuntimeException failure, Locale locale) {
        String resource = rule.resource();
        if (failure instanceof RateLimitExceededException e) {
            if (log.isDebugEnabled()) {
                log.debug("429 on resource '{}': {}", resource, e.getMessage());
            }
            Map<String, String> headers = new LinkedHashMap<>(4);
            headers.put(RateLimitHeaders.RETRY_AFTER, Long.toString(RateLimitHeaders.seconds(e.retryAfter())));
            if (ietfHeaders && !(e instanceof ResourcePausedException)) {
                RateLimitHeaders.set(headers::put, e.statuses());
            }
            return new Refusal(problems.tooManyRequests(e, resource, locale), headers);
        }
        if (failure instanceof ResourceDisabledException) {
            return new Refusal(problems.disabled(resource, locale), Map.of());
        }
        if (failure instanceof UnsatisfiableRequestException e) {
            return new Refusal(problems.unsatisfiable(e, resource, locale), Map.of());
        }
        if (failure instanceof StoreUnavailableException e) {
            if (warnings.shouldLog()) {
                log.warn("rate limiter store unavailable, answering 503 on resource '{}' (logged at most every 10 s):"
                        + " {}", resource, e.getMessage());
            }
            return new Refusal(problems.storeUnavailable(resource, unavailableRetryAfter, locale),
                    Map.of(RateLimitHeaders.RETRY_AFTER, Long.toString(unavailableRetryAfter)));
        }
        if (failure instanceof ValidationException e && "entityId".equals(e.field())) {
            // never echo the value: without hashing it is the caller's own input, and it is not needed
            return new Refusal(problems.invalidEntity(resource, rule.sourceDescription(), locale), Map.of());
        }
        if (failure instanceof ValidationException || failure instanceof NoLimitsConfiguredException) {
            if (warnings.shouldLog()) {
                log.error("rate limit rule {} cannot be applied, answering 500 (logged at most every 10 s): {}", rule,
                        failure.getMessage());
            }
            return new Refusal(problems.misconfigured(resource, locale), Map.of());
        }
        throw failure;
    }
}
