package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.UnsatisfiableRequestException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.MessageSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.lang.Nullable;

import java.net.URI;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds the RFC 9457 problems of the filter and of {@link RateLimitExceptionHandler} as Spring
 * {@link ProblemDetail}s. Each {@code detail} comes from a {@link MessageSource} code (the {@code CODE_*}
 * constants, all under {@code zae.limiter.problem.}), so that an application can translate or reword it in its
 * {@code messages.properties}; the English defaults are used when the code is not defined. Extension members are in
 * camelCase like Spring's own and the actuator's, except {@code violated-policies}, the member the
 * {@code quota-exceeded} problem type of draft-ietf-httpapi-ratelimit-headers defines under that name.
 * With {@code includeDetails} false ({@code zae.limiter.web.problem.include-details=false}) bodies carry no entity
 * id, capacity, balance or requested amount.
 */
public final class RateLimitProblems {

    /** The problem type draft-ietf-httpapi-ratelimit-headers defines for a request over its quota. */
    public static final URI QUOTA_EXCEEDED = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

    private static final URI ABOUT_BLANK = URI.create("about:blank");

    /** Args: resource, policy names (comma separated), retry-after seconds. */
    public static final String CODE_QUOTA_EXCEEDED = "zae.limiter.problem.quota-exceeded";
    /** Args: resource, policy name, tokens available, tokens requested, retry-after seconds (include-details only). */
    public static final String CODE_QUOTA_EXCEEDED_BALANCE = "zae.limiter.problem.quota-exceeded.balance";
    /** Args: resource, retry-after seconds. */
    public static final String CODE_PAUSED = "zae.limiter.problem.paused";
    /** Args: resource, limit name. */
    public static final String CODE_UNSATISFIABLE = "zae.limiter.problem.unsatisfiable";
    /** Args: resource, limit name, tokens requested, capacity (include-details only). */
    public static final String CODE_UNSATISFIABLE_BALANCE = "zae.limiter.problem.unsatisfiable.balance";
    /** Args: resource. */
    public static final String CODE_DISABLED = "zae.limiter.problem.disabled";
    /** Args: resource, retry-after seconds. */
    public static final String CODE_STORE_UNAVAILABLE = "zae.limiter.problem.store-unavailable";
    /** Args: resource, where the entity comes from (such as "header X-Api-Key"). */
    public static final String CODE_MISSING_ENTITY = "zae.limiter.problem.missing-entity";
    /** Args: resource, where the entity comes from. */
    public static final String CODE_INVALID_ENTITY = "zae.limiter.problem.invalid-entity";
    /** Args: resource. */
    public static final String CODE_MISCONFIGURED = "zae.limiter.problem.misconfigured";

    private static final String RETRY = "retry after {0,choice,0#{0} seconds|1#1 second|1<{0} seconds}.";
    private static final Map<String, String> DEFAULTS = Map.of(
            CODE_QUOTA_EXCEEDED, "The request exceeds the rate limits {1} of resource ''{0}''; "
                    + RETRY.replace("{0", "{2"),
            CODE_QUOTA_EXCEEDED_BALANCE, "Limit ''{1}'' on resource ''{0}'' has {2} tokens available and the"
                    + " request needs {3}; " + RETRY.replace("{0", "{4"),
            CODE_PAUSED, "Requests to resource ''{0}'' are paused; " + RETRY.replace("{0", "{1"),
            CODE_UNSATISFIABLE, "The request needs more tokens of limit ''{1}'' on resource ''{0}'' than its"
                    + " capacity, so no wait could admit it.",
            CODE_UNSATISFIABLE_BALANCE, "The request needs {2} tokens of limit ''{1}'' on resource ''{0}'', more"
                    + " than its capacity of {3}, so no wait could admit it.",
            CODE_DISABLED, "Resource ''{0}'' is disabled for this caller.",
            CODE_STORE_UNAVAILABLE, "The rate limiter cannot reach its store; retry later.",
            CODE_MISSING_ENTITY, "Rate limiting on resource ''{0}'' identifies callers by {1}, and this request has"
                    + " none.",
            CODE_INVALID_ENTITY, "Rate limiting on resource ''{0}'' identifies callers by {1}, and this request''s"
                    + " value is not a valid entity id (letters, digits and _ . - : @, starting with a letter or a"
                    + " digit, at most 256 characters).",
            CODE_MISCONFIGURED, "Rate limiting is misconfigured for this request; the server log says why.");

    @Nullable
    private final MessageSource messages;
    private final boolean includeDetails;

    /**
     * @param messages where {@code detail} texts are looked up; {@code null} uses the English defaults
     * @param includeDetails whether bodies carry entity ids, capacities, balances and requested amounts
     */
    public RateLimitProblems(@Nullable MessageSource messages, boolean includeDetails) {
        this.messages = messages;
        this.includeDetails = includeDetails;
    }

    /**
     * The application's {@code RateLimitProblems} bean, or one with its {@link MessageSource} and
     * {@code zae.limiter.web.problem.include-details}: what every auto-configured filter and handler uses.
     */
    static RateLimitProblems of(ObjectProvider<RateLimitProblems> problems, ObjectProvider<MessageSource> messages,
            ZaeLimiterWebProperties properties) {
        return problems.getIfAvailable(() -> new RateLimitProblems(messages.getIfAvailable(),
                properties.getProblem().isIncludeDetails()));
    }

    /** Whether bodies carry entity ids, capacities, balances and requested amounts. */
    public boolean includeDetails() {
        return includeDetails;
    }

    /** 429 of type {@code quota-exceeded}, listing each violated limit. */
    public ProblemDetail tooManyRequests(RateLimitExceededException e, String resource, Locale locale) {
        long retryAfter = RateLimitHeaders.seconds(e.retryAfter());
        // a pause is described by the problem's detail; its status is not a limit the client can pace itself on
        List<LimitStatus> violations = e instanceof ResourcePausedException ? List.of() : e.violations();
        String primary = e.statuses().isEmpty() ? "" : e.statuses().get(0).entityId();
        List<String> policies = new ArrayList<>(violations.size());
        for (LimitStatus v : violations) {
            policies.add(RateLimitHeaders.policyName(v, primary));
        }
        String detail;
        if (violations.isEmpty()) {
            detail = message(CODE_PAUSED, locale, resource, retryAfter);
        } else if (includeDetails && violations.size() == 1) {
            LimitStatus v = violations.get(0);
            detail = message(CODE_QUOTA_EXCEEDED_BALANCE, locale, resource, policies.get(0),
                    String.valueOf(Math.max(0, v.available())), String.valueOf(v.requested()), retryAfter);
        } else {
            detail = message(CODE_QUOTA_EXCEEDED, locale, resource, String.join(", ", policies), retryAfter);
        }
        ProblemDetail problem = problem(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", detail);
        problem.setType(QUOTA_EXCEEDED);
        problem.setProperty("resource", resource);
        problem.setProperty("retryAfter", retryAfter);
        problem.setProperty("violated-policies", policies);
        if (includeDetails) {
            List<Map<String, Object>> list = new ArrayList<>(violations.size());
            for (int i = 0; i < violations.size(); i++) {
                LimitStatus v = violations.get(i);
                Map<String, Object> item = new LinkedHashMap<>();
                item.put("policy", policies.get(i));
                item.put("entity", v.entityId());
                item.put("resource", v.resource());
                item.put("limit", v.limitName());
                item.put("capacity", v.capacity());
                item.put("available", v.available());
                item.put("requested", v.requested());
                item.put("retryAfter", RateLimitHeaders.seconds(v.retryAfter()));
                list.add(item);
            }
            problem.setProperty("violations", list);
        }
        return problem;
    }

    /** 422: the request needs more than a limit's capacity, so no wait could admit it. */
    public ProblemDetail unsatisfiable(UnsatisfiableRequestException e, String resource, Locale locale) {
        ProblemDetail problem;
        if (includeDetails) {
            problem = problem(HttpStatus.UNPROCESSABLE_ENTITY, "Unprocessable Content",
                    message(CODE_UNSATISFIABLE_BALANCE, locale, resource, e.limitName(),
                            String.valueOf(e.requested()), String.valueOf(e.capacity())));
        } else {
            problem = problem(HttpStatus.UNPROCESSABLE_ENTITY, "Unprocessable Content",
                    message(CODE_UNSATISFIABLE, locale, resource, e.limitName()));
        }
        problem.setProperty("resource", resource);
        problem.setProperty("limit", e.limitName());
        if (includeDetails) {
            problem.setProperty("entity", e.entityId());
            problem.setProperty("capacity", e.capacity());
            problem.setProperty("requested", e.requested());
        }
        return problem;
    }

    /** 403: the resource is disabled for this caller. */
    public ProblemDetail disabled(String resource, Locale locale) {
        return withResource(problem(HttpStatus.FORBIDDEN, "Forbidden", message(CODE_DISABLED, locale, resource)),
                resource);
    }

    /** 503: the store cannot be reached and the unavailability policy blocks. */
    public ProblemDetail storeUnavailable(@Nullable String resource, long retryAfterSeconds, Locale locale) {
        ProblemDetail problem = withResource(problem(HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
                message(CODE_STORE_UNAVAILABLE, locale, resource, retryAfterSeconds)), resource);
        problem.setProperty("retryAfter", retryAfterSeconds);
        return problem;
    }

    /** 400: the request carries no entity where the rule looks for one. */
    public ProblemDetail missingEntity(String resource, String source, Locale locale) {
        return withResource(problem(HttpStatus.BAD_REQUEST, "Bad Request",
                message(CODE_MISSING_ENTITY, locale, resource, source)), resource);
    }

    /** 400: the request's entity is not a valid entity id (the value is never echoed). */
    public ProblemDetail invalidEntity(String resource, String source, Locale locale) {
        return withResource(problem(HttpStatus.BAD_REQUEST, "Bad Request",
                message(CODE_INVALID_ENTITY, locale, resource, source)), resource);
    }

    /** 500: a rule or declaration cannot be applied; the server log says why. */
    public ProblemDetail misconfigured(String resource, Locale locale) {
        return withResource(problem(HttpStatus.INTERNAL_SERVER_ERROR, "Internal Server Error",
                message(CODE_MISCONFIGURED, locale, resource)), resource);
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        // Spring Framework 7 leaves the default type out; written on both Spring Boot lines, the bodies stay the same
        problem.setType(ABOUT_BLANK);
        problem.setTitle(title);
        return problem;
    }

    private static ProblemDetail withResource(ProblemDetail problem, @Nullable String resource) {
        if (resource != null) {
            problem.setProperty("resource", resource);
        }
        return problem;
    }

    private String message(String code, Locale locale, Object... args) {
        String fallback = DEFAULTS.get(code);
        if (messages != null) {
            String text = messages.getMessage(code, args, null, locale);
            if (text != null) {
                return text;
            }
        }
        return new MessageFormat(fallback, locale).format(args);
    }
}
