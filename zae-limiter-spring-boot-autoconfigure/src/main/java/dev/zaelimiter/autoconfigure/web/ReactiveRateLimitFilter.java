package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.Lease;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

import java.net.URI;
import java.security.Principal;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The WebFlux counterpart of {@link RateLimitFilter}: the same rules ({@code zae.limiter.web.rules}), headers,
 * problem bodies and properties, so the same YAML limits both stacks. The first rule whose methods and paths match
 * decides the resource, the entity and the amounts; the acquire happens when the response is subscribed to and never
 * blocks the event loop (see {@link ReactiveRateLimiter}). An admitted request gets the IETF headers and runs the
 * chain; its lease is closed when the chain completes and rolled back when it fails or is cancelled. A refusal is
 * answered with the status, headers and {@code application/problem+json} body the servlet filter sends.
 * Thread-safe.
 */
public class ReactiveRateLimitFilter implements WebFilter, Ordered {

    private static final Logger log = LoggerFactory.getLogger(ReactiveRateLimitFilter.class);

    private final ReactiveRateLimiter limiter;
    private final RateLimitRule[] rules;
    private final boolean ietfHeaders;
    private final RateLimitRefusals refusals;
    private final Function<ProblemDetail, byte[]> problemWriter;
    private final int order;

    /**
     * A filter for {@code properties}' rules that builds its problems with {@code problems} and writes them with
     * {@code problemWriter}.
     *
     * @throws InvalidDeclarationException when a rule is invalid, naming the property
     */
    public ReactiveRateLimitFilter(ReactiveRateLimiter limiter, ZaeLimiterWebProperties properties,
            RateLimitProblems problems, Function<ProblemDetail, byte[]> problemWriter) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.problemWriter = Objects.requireNonNull(problemWriter, "problemWriter");
        this.rules = RateLimitRule.compile(properties).toArray(RateLimitRule[]::new);
        this.ietfHeaders = RateLimitHeaders.ietf(properties);
        this.refusals = new RateLimitRefusals(Objects.requireNonNull(problems, "problems"), ietfHeaders,
                RateLimitHeaders.unavailableRetryAfter(properties));
        this.order = properties.getFilterOrder();
    }

    /** The compiled rules, in the order they are tried. */
    List<RateLimitRule> rules() {
        return List.of(rules);
    }

    /** {@code zae.limiter.web.filter-order}. */
    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        RateLimitRule rule = match(exchange.getRequest());
        if (rule == null) {
            return chain.filter(exchange);
        }
        if (!rule.needsPrincipal()) {
            return limit(exchange, chain, rule, null);
        }
        return exchange.getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty())
                .flatMap(principal -> limit(exchange, chain, rule, principal.orElse(null)));
    }

    private RateLimitRule match(ServerHttpRequest request) {
        String method = request.getMethod().name();
        PathContainer path = null;
        for (RateLimitRule rule : rules) {
            if (!rule.matchesMethod(method)) {
                continue;
            }
            if (path == null) {
                path = request.getPath().pathWithinApplication();
            }
            if (rule.matchesPath(path)) {
                return rule;
            }
        }
        return null;
    }

    private Mono<Void> limit(ServerWebExchange exchange, WebFilterChain chain, RateLimitRule rule,
            Principal principal) {
        String entityId = rule.entityId(new ReactiveRuleRequest(exchange.getRequest(), principal),
                ReactiveRuleRequest.Access.INSTANCE);
        if (entityId == null) {
            return write(exchange, refusals.missingEntity(rule, locale(exchange)));
        }
        return limiter.acquire(rule.request(entityId))
                .onErrorResume(RateLimitRefusals::isRefusal, failure -> write(exchange,
                        refusals.of(rule, (RuntimeException) failure, locale(exchange))).then(Mono.empty()))
                .flatMap(lease -> admitted(exchange, chain, lease, rule));
    }

    private Mono<Void> admitted(ServerWebExchange exchange, WebFilterChain chain, Lease lease,
            RateLimitRule rule) {
        if (ietfHeaders && !lease.bypassed()) {
            HttpHeaders headers = exchange.getResponse().getHeaders();
            RateLimitHeaders.set(headers::set, lease.statuses(), rule.lastPolicy());
        }
        return Mono.usingWhen(Mono.just(lease), admittedLease -> chain.filter(exchange),
                limiter::close,
                (failed, error) -> rollback(failed, error),
                cancelled -> rollback(cancelled, null));
    }

    private Mono<Void> rollback(Lease lease, Throwable cause) {
        return limiter.rollback(lease).onErrorResume(RuntimeException.class, e -> {
            if (cause != null) {
                cause.addSuppressed(e);
            }
            log.warn("could not roll back the rate limit lease of a failed request: {}", e.getMessage());
            return Mono.empty();
        });
    }

    private Mono<Void> write(ServerWebExchange exchange, RateLimitRefusals.Refusal refusal) {
        ProblemDetail problem = refusal.problem();
        ServerHttpRequest request = exchange.getRequest();
        if (problem.getInstance() == null) {
            try {
                problem.setInstance(URI.create(request.getPath().value()));
            } catch (IllegalArgumentException e) {
                // not a valid URI reference: leave instance out, as it is optional
            }
        }
        byte[] body = problemWriter.apply(problem);
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatusCode.valueOf(problem.getStatus()));
        HttpHeaders headers = response.getHeaders();
        refusal.headers().forEach(headers::set);
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        headers.setContentLength(body.length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }

    private static Locale locale(ServerWebExchange exchange) {
        Locale locale = exchange.getLocaleContext().getLocale();
        return locale != null ? locale : Locale.getDefault();
    }
}
