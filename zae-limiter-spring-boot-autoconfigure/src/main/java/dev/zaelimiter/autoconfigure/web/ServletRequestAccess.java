package dev.zaelimiter.autoconfigure.web;

import jakarta.servlet.http.HttpServletRequest;

import java.security.Principal;

/** How {@link RateLimitRule} reads a servlet request; entity expressions see the {@link HttpServletRequest} itself. */
enum ServletRequestAccess implements RateLimitRule.RequestAccess<HttpServletRequest> {

    INSTANCE;

    @Override
    public String header(HttpServletRequest request, String name) {
        return request.getHeader(name);
    }

    @Override
    public String principalName(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    @Override
    public String remoteAddress(HttpServletRequest request) {
        return request.getRemoteAddr();
    }

    @Override
    public Object expressionRoot(HttpServletRequest request) {
        return request;
    }
}
