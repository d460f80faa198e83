package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.NoLimitsConfiguredException;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourceDisabledException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.UnsatisfiableRequestException;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.util.ClassUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ServletRequestPathUtils;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Rate-limits HTTP requests by the rules of {@code zae.limiter.web.rules}. For each request, the first rule whose
 * methods and paths match decides the resource, the entity (from a header, the principal, the remote address or a
 * SpEL expression, optionally replaced by a keyed hash) and the tokens to consume. Then:
 * <ul>
 * <li>admitted: the IETF {@code RateLimit-Policy} and {@code RateLimit} headers are set (unless
 * {@code headers=none}), the chain runs, and the lease is closed; when the chain throws, the lease is rolled back;</li>
 * <li>over a limit: 429 with {@code Retry-After}, the IETF headers and an RFC 9457 problem listing each violated
 * limit;</li>
 * <li>no entity and no default: 400; resource disabled for the entity: 403; a request that costs more than a
 * limit's capacity, so that no wait could admit it: 422; store unavailable under {@code on-unavailable=block}: 503
 * with {@code Retry-After}; a rule whose resource has no limits or lacks a consumed limit: 500 - all as
 * {@code application/problem+json}, built by {@link RateLimitProblems} as Spring {@link ProblemDetail}s and
 * written with the application's {@code ObjectMapper}, {@code instance} being the request URI as in Spring MVC's own
 * problems.</li>
 * </ul>
 * A request no rule matches passes untouched. Rules are compiled once, at construction; the filter is thread-safe.
 */
public class RateLimitFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(RateLimitFilter.class);

    private final RateLimiter limiter;
    private final RateLimitRule[] rules;
    private final boolean ietfHeaders;
    private final long unavailableRetryAfter;
    private final RateLimitProblems problems;
    private final Function<ProblemDetail, byte[]> problemWriter;
    /** When a warning about the store or a rule was last logged (nanoTime), so that an outage logs once per period. */
    private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARNING_PERIOD_NANOS);

    private static final long WARNING_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

    /**
     * A filter for {@code properties}' rules on {@code limiter}.
     *
     * @throws InvalidDeclarationException when a rule is invalid, naming the property
     */
    public RateLimitFilter(RateLimiter limiter, ZaeLimiterWebProperties properties) {
        this(limiter, properties, new RateLimitProblems(null, properties.getProblem().isIncludeDetails()),
                defaultWriter());
    }

    /**
     * A filter for {@code properties}' rules on {@code limiter} that builds its problems with {@code problems} and
     * writes them with {@code problemWriter} (the auto-configuration passes one that uses the application's
     * {@code ObjectMapper}).
     *
     * @throws InvalidDeclarationException when a rule is invalid, naming the property
     */
    public RateLimitFilter(RateLimiter limiter, ZaeLimiterWebProperties properties, RateLimitProblems problems,
            Function<ProblemDetail, byte[]> problemWriter) {
        this.problems = Objects.requireNonNull(problems, "problems");
        this.problemWriter = Objects.requireNonNull(problemWriter, "problemWriter");
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.rules = RateLimitRule.compile(properties).toArray(RateLimitRule[]::new);
        this.ietfHeaders = properties.getHeaders() != ZaeLimiterWebProperties.Headers.NONE;
        if (properties.getUnavailableRetryAfter() == null || properties.getUnavailableRetryAfter().isNegative()) {
            throw new InvalidDeclarationException("zae.limiter.web.unavailable-retry-after", "a duration of zero"
                    + " or more is required, such as 1s");
        }
        this.unavailableRetryAfter = RateLimitResponses.seconds(properties.getUnavailableRetryAfter());
    }

    private static Function<ProblemDetail, byte[]> defaultWriter() {
        if (!ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", RateLimitFilter.class.getClassLoader())) {
            throw new IllegalStateException("The zae-limiter servlet filter writes its problem+json bodies with"
                    + " Jackson, which is not on the classpath; add com.fasterxml.jackson.core:jackson-databind (Spring"
                    + " Boot's spring-boot-starter-web brings it) or pass a writer to the filter.");
        }
        return new JacksonProblemWriter(new com.fasterxml.jackson.databind.ObjectMapper());
    }

    /** The compiled rules, in the order they are tried. */
    List<RateLimitRule> rules() {
        return List.of(rules);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        RateLimitRule rule = match(request);
        if (rule == null) {
            chain.doFilter(request, response);
            return;
        }
        String entityId = rule.entityId(request);
        if (entityId == null) {
            write(request, response, problems.missingEntity(rule.resource(), rule.sourceDescription(),
                    request.getLocale()));
            return;
        }
        Lease lease = acquire(rule, entityId, request, response);
        if (lease == null) {
            return; // refused; the response is written
        }
        if (ietfHeaders && !lease.bypassed()) {
            RateLimitResponses.setHeaders(response, lease.statuses());
        }
        try {
            chain.doFilter(request, response);
        } catch (Throwable t) {
            rollback(lease, t);
            throw t;
        }
        lease.close();
    }

    /** The first rule whose methods and paths match, or {@code null}. Parses the path once, and only if needed. */
    private RateLimitRule match(HttpServletRequest request) {
        String method = request.getMethod();
        PathContainer path = null;
        for (RateLimitRule rule : rules) {
            if (!rule.matchesMethod(method)) {
                continue;
            }
            if (path == null) {
                path = path(request);
            }
            if (rule.matchesPath(path)) {
                return rule;
            }
        }
        return null;
    }

    /** The path within the application, as Spring MVC matches it: the one it parsed already, or parsed the same way. */
    private static PathContainer path(HttpServletRequest request) {
        RequestPath path = ServletRequestPathUtils.hasParsedRequestPath(request)
                ? ServletRequestPathUtils.getParsedRequestPath(request)
                : RequestPath.parse(request.getRequestURI(), request.getContextPath());
        return path.pathWithinApplication();
    }

    /** The lease, or {@code null} after writing the refusal. */
    private Lease acquire(RateLimitRule rule, String entityId, HttpServletRequest http, HttpServletResponse response)
            throws IOException {
        String resource = rule.resource();
        try {
            AcquireRequest request = AcquireRequest.of(entityId, resource).consume(rule.consume());
            return limiter.acquire(rule.maxWait().isZero() ? request : request.maxWait(rule.maxWait()));
        } catch (RateLimitExceededException e) {
            if (log.isDebugEnabled()) {
                log.debug("429 on resource '{}': {}", resource, e.getMessage());
            }
            RateLimitResponses.setTooManyRequestsHeaders(response, e, ietfHeaders);
            write(http, response, problems.tooManyRequests(e, resource, http.getLocale()));
        } catch (ResourceDisabledException e) {
            write(http, response, problems.disabled(resource, http.getLocale()));
        } catch (UnsatisfiableRequestException e) {
            write(http, response, problems.unsatisfiable(e, resource, http.getLocale()));
        } catch (StoreUnavailableException e) {
            if (shouldWarn()) {
                log.warn("rate limiter store unavailable, answering 503 on resource '{}' (logged at most every 10 s):"
                        + " {}", resource, e.getMessage());
            }
            response.setHeader(RateLimitResponses.RETRY_AFTER, Long.toString(unavailableRetryAfter));
            write(http, response, problems.storeUnavailable(resource, unavailableRetryAfter, http.getLocale()));
        } catch (ValidationException e) {
            if ("entityId".equals(e.field())) {
                // never echo the value: without hashing it is the caller's own input, and it is not needed
                write(http, response, problems.invalidEntity(resource, rule.sourceDescription(), http.getLocale()));
            } else {
                misconfigured(http, response, rule, e);
            }
        } catch (NoLimitsConfiguredException e) {
            misconfigured(http, response, rule, e);
        }
        return null;
    }

    private void write(HttpServletRequest request, HttpServletResponse response, ProblemDetail problem)
            throws IOException {
        RateLimitResponses.write(request, response, problem, problemWriter);
    }

    private void misconfigured(HttpServletRequest request, HttpServletResponse response, RateLimitRule rule,
            RuntimeException e) throws IOException {
        if (shouldWarn()) {
            log.error("rate limit rule {} cannot be applied, answering 500 (logged at most every 10 s): {}", rule,
                    e.getMessage());
        }
        write(request, response, problems.misconfigured(rule.resource(), request.getLocale()));
    }

    private boolean shouldWarn() {
        long last = lastWarning.get();
        long now = System.nanoTime();
        return now - last >= WARNING_PERIOD_NANOS && lastWarning.compareAndSet(last, now);
    }

    private static void rollback(Lease lease, Throwable cause) {
        try {
            lease.rollback();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            log.warn("could not roll back the rate limit lease of a failed request: {}", e.getMessage());
        }
    }
}
