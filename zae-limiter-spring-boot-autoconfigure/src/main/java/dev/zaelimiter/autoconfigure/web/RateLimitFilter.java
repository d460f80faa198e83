package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.Attempt;
import dev.zaelimiter.Lease;
import dev.zaelimiter.NoLimitsConfiguredException;
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
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ServletRequestPathUtils;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
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
    /** {@link #match}'s start of the path within the application: not looked at yet; to be parsed by Spring. */
    private static final int UNKNOWN = -2;
    private static final int PARSE = -1;

    private final RateLimiter limiter;
    private final RateLimitRule[] rules;
    private final boolean ietfHeaders;
    private final RateLimitRefusals refusals;
    private final Function<ProblemDetail, byte[]> problemWriter;
    private volatile FilteredAttribute filteredAttribute;

    /**
     * A filter for {@code properties}' rules on {@code limiter}.
     *
     * @throws InvalidDeclarationException when a rule is invalid, naming the property
     */
    public RateLimitFilter(RateLimiter limiter, ZaeLimiterWebProperties properties) {
        this(limiter, properties, new RateLimitProblems(null, properties.getProblem().isIncludeDetails()),
                ProblemWriters.standalone());
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
        this.problemWriter = Objects.requireNonNull(problemWriter, "problemWriter");
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.rules = RateLimitRule.compile(properties).toArray(RateLimitRule[]::new);
        this.ietfHeaders = RateLimitHeaders.ietf(properties);
        this.refusals = new RateLimitRefusals(Objects.requireNonNull(problems, "problems"), ietfHeaders,
                RateLimitHeaders.unavailableRetryAfter(properties));
    }

    /**
     * Spring's name ({@code <filter name>.FILTERED}), kept while the filter name is the same instead of being
     * concatenated on every request.
     */
    @Override
    protected String getAlreadyFilteredAttributeName() {
        String filterName = getFilterName();
        FilteredAttribute cached = filteredAttribute;
        if (cached == null || !Objects.equals(cached.filterName(), filterName)) {
            cached = new FilteredAttribute(filterName, super.getAlreadyFilteredAttributeName());
            filteredAttribute = cached;
        }
        return cached.attributeName();
    }

    private record FilteredAttribute(String filterName, String attributeName) {
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
        String entityId = rule.entityId(request, ServletRequestAccess.INSTANCE);
        if (entityId == null) {
            write(request, response, refusals.missingEntity(rule, request.getLocale()));
            return;
        }
        Lease lease = acquire(rule, entityId, request, response);
        if (lease == null) {
            return; // refused; the response is written
        }
        if (ietfHeaders && !lease.bypassed()) {
            RateLimitResponses.setHeaders(response, lease.statuses(), rule.lastPolicy());
        }
        try {
            chain.doFilter(request, response);
        } catch (Throwable t) {
            rollback(lease, t);
            throw t;
        }
        lease.close();
    }

    /**
     * The first rule whose methods and paths match, or {@code null}. A rule whose patterns are all literal is matched
     * on the request URI when that URI is plain (see {@link LiteralPathPattern}); otherwise the path is parsed, once,
     * and only if needed.
     */
    private RateLimitRule match(HttpServletRequest request) {
        String method = request.getMethod();
        PathContainer path = null;
        String uri = null;
        int from = UNKNOWN;
        for (RateLimitRule rule : rules) {
            if (!rule.matchesMethod(method)) {
                continue;
            }
            if (rule.hasLiteralPaths() && path == null) {
                if (from == UNKNOWN) {
                    uri = request.getRequestURI();
                    from = ServletRequestPathUtils.hasParsedRequestPath(request) ? PARSE
                            : LiteralPathPattern.start(uri, request.getContextPath());
                }
                if (from >= 0) {
                    if (rule.matchesLiteralPath(uri, from)) {
                        return rule;
                    }
                    continue;
                }
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
        try {
            Attempt attempt = rule.needsRequest()
                    ? limiter.tryAcquire(rule.request(entityId))
                    : limiter.tryAcquire(entityId, rule.resource(), rule.consume());
            if (attempt.admitted()) {
                return attempt.lease();
            }
            write(http, response, refusals.of(rule, attempt.refusal(), http.getLocale()));
        } catch (ResourceDisabledException | UnsatisfiableRequestException | StoreUnavailableException
                | ValidationException | NoLimitsConfiguredException e) {
            write(http, response, refusals.of(rule, e, http.getLocale()));
        }
        return null;
    }

    private void write(HttpServletRequest request, HttpServletResponse response, RateLimitRefusals.Refusal refusal)
            throws IOException {
        refusal.headers().forEach(response::setHeader);
        RateLimitResponses.write(request, response, refusal.problem(), problemWriter);
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
