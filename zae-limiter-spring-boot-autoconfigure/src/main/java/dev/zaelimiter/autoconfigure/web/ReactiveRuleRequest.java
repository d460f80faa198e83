package dev.zaelimiter.autoconfigure.web;

import org.springframework.http.server.reactive.ServerHttpRequest;

import java.net.InetSocketAddress;
import java.security.Principal;

/**
 * A WebFlux request as {@code zae.limiter.web.rules[i].entity.expression} sees it: the root object offers the
 * servlet request's names ({@code getHeader('X-Org')}, {@code remoteAddr}, {@code userPrincipal?.name},
 * {@code method}, {@code requestURI}), so the same expression works in both stacks, and {@code request} for the rest.
 */
public final class ReactiveRuleRequest {

    private final ServerHttpRequest request;
    private final Principal principal;

    ReactiveRuleRequest(ServerHttpRequest request, Principal principal) {
        this.request = request;
        this.principal = principal;
    }

    /** The first value of header {@code name}, or {@code null}. */
    public String getHeader(String name) {
        return request.getHeaders().getFirst(name);
    }

    /** The client's IP address, or {@code null} when the server does not know it. */
    public String getRemoteAddr() {
        InetSocketAddress address = request.getRemoteAddress();
        if (address == null) {
            return null;
        }
        return address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
    }

    /** The authenticated principal, or {@code null}. */
    public Principal getUserPrincipal() {
        return principal;
    }

    /** The HTTP method, such as {@code GET}. */
    public String getMethod() {
        return request.getMethod().name();
    }

    /** The request path, without the query. */
    public String getRequestURI() {
        return request.getPath().value();
    }

    /** The WebFlux request itself. */
    public ServerHttpRequest getRequest() {
        return request;
    }

    /** How {@link RateLimitRule} reads it. */
    enum Access implements RateLimitRule.RequestAccess<ReactiveRuleRequest> {

        INSTANCE;

        @Override
        public String header(ReactiveRuleRequest request, String name) {
            return request.getHeader(name);
        }

        @Override
        public String principalName(ReactiveRuleRequest request) {
            return request.principal == null ? null : request.principal.getName();
        }

        @Override
        public String remoteAddress(ReactiveRuleRequest request) {
            return request.getRemoteAddr();
        }

        @Override
        public Object expressionRoot(ReactiveRuleRequest request) {
            return request;
        }
    }
}
