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
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ServletRequestPathUtils;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
 * {@code application/problem+json}.</li>
 * </ul>
 * A request no rule matches passes untouched. Rules are compiled once, at construction; the filter is thread-safe.
 */
public class RateLimitFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(RateLimitFilter.class);

    private final RateLimiter limiter;
    private final RateLimitRule[] rules;
    private final boolean ietfHeaders;
    private final long unavailableRetryAfter;
    /** When a warning about the store or a rule was last logged (nanoTime), so that an outage logs once per period. */
    private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARNING_PERIOD_NANOS);

    private static final long WARNING_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

    /**
     * A filter for {@code properties}' rules on {@code limiter}.
     *
     * @throws InvalidDeclarationException when a rule is invalid, naming the property
     */
    public RateLimitFilter(RateLimiter limiter, ZaeLimiterWebProperties properties) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.rules = RateLimitRule.compile(properties).toArray(RateLimitRule[]::new);
        this.ietfHeaders = properties.getHeaders() != ZaeLimiterWebProperties.Headers.NONE;
        if (properties.getUnavailableRetryAfter() == null || properties.getUnavailableRetryAfter().isNegative()) {
            throw new InvalidDeclarationException("zae.limiter.web.unavailable-retry-after", "a duration of zero"
                    + " or more is required, such as 1s");
        }
        this.unavailableRetryAfter = RateLimitResponses.seconds(properties.getUnavailableRetryAfter());
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
            missingEntity(response, rule);
            return;
        }
        Lease lease = acquire(rule, entityId, response);
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
    private Lease acquire(RateLimitRule rule, String entityId, HttpServletResponse response) throws IOException {
        String resource = rule.resource();
        try {
            AcquireRequest request = AcquireRequest.of(entityId, resource).consume(rule.consume());
            return limiter.acquire(rule.maxWait().isZero() ? request : request.maxWait(rule.maxWait()));
        } catch (RateLimitExceededException e) {
            if (log.isDebugEnabled()) {
                log.debug("429 on resource '{}': {}", resource, e.getMessage());
            }
            RateLimitResponses.tooManyRequests(response, e, resource, ietfHeaders);
        } catch (ResourceDisabledException e) {
            RateLimitResponses.write(response, 403, RateLimitResponses.problem(403, "Forbidden",
                    "Resource '" + resource + "' is disabled for this caller.").field("resource", resource));
        } catch (UnsatisfiableRequestException e) {
            RateLimitResponses.write(response, 422, RateLimitResponses.problem(422, "Unprocessable Content",
                    "The request needs " + e.requested() + " tokens of limit '" + e.limitName() + "' on resource '"
                            + resource + "', more than its capacity of " + e.capacity()
                            + ", so no wait could admit it.")
                    .field("entity", e.entityId())
                    .field("resource", resource)
                    .field("limit", e.limitName())
                    .field("capacity", e.capacity())
                    .field("requested", e.requested()));
        } catch (StoreUnavailableException e) {
            if (shouldWarn()) {
                log.warn("rate limiter store unavailable, answering 503 on resource '{}' (logged at most every 10 s):"
                        + " {}", resource, e.getMessage());
            }
            response.setHeader(RateLimitResponses.RETRY_AFTER, Long.toString(unavailableRetryAfter));
            RateLimitResponses.write(response, 503, RateLimitResponses.problem(503, "Service Unavailable",
                    "The rate limiter cannot reach its store; retry later.").field("resource", resource)
                    .field("retry_after", unavailableRetryAfter));
        } catch (ValidationException e) {
            if ("entityId".equals(e.field())) {
                // never echo the value: without hashing it is the caller's own input, and it is not needed
                RateLimitResponses.write(response, 400, RateLimitResponses.problem(400, "Bad Request",
                        "Rate limiting on resource '" + resource + "' identifies callers by "
                                + rule.sourceDescription() + ", and this request's value is not a valid entity id"
                                + " (letters, digits and _ . - : @, starting with a letter or a digit, at most 256"
                                + " characters).").field("resource", resource));
            } else {
                misconfigured(response, rule, e);
            }
        } catch (NoLimitsConfiguredException e) {
            misconfigured(response, rule, e);
        }
        return null;
    }

    private static void missingEntity(HttpServletResponse response, RateLimitRule rule) throws IOException {
        RateLimitResponses.write(response, 400, RateLimitResponses.problem(400, "Bad Request",
                "Rate limiting on resource '" + rule.resource() + "' identifies callers by " + rule.sourceDescription()
                        + ", and this request has none.").field("resource", rule.resource()));
    }

    private void misconfigured(HttpServletResponse response, RateLimitRule rule, RuntimeException e)
            throws IOException {
        if (shouldWarn()) {
            log.error("rate limit rule {} cannot be applied, answering 500 (logged at most every 10 s): {}", rule,
                    e.getMessage());
        }
        RateLimitResponses.write(response, 500, RateLimitResponses.problem(500, "Internal Server Error",
                "Rate limiting is misconfigured for this request; the server log says why.")
                .field("resource", rule.resource()));
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
