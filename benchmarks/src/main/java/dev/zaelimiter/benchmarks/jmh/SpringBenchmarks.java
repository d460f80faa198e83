package dev.zaelimiter.benchmarks.jmh;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.aop.RateLimitedAdvisor;
import dev.zaelimiter.autoconfigure.aop.RateLimitedInterceptor;
import dev.zaelimiter.autoconfigure.aop.RateLimitedOperationSource;
import dev.zaelimiter.autoconfigure.web.RateLimitFilter;
import dev.zaelimiter.autoconfigure.web.ZaeLimiterWebProperties;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * {@code @RateLimited} through a Spring AOP proxy built with the starter's advisor, and the servlet filter with one
 * rule, each next to the same work done by hand: a direct {@code acquire}, the same method or a no-op chain, then
 * {@code close}. The wiring also holds what {@link SpringBaselines} measures.
 */
public class SpringBenchmarks {

    /** The rate-limited method's class; {@link #plain} calls it without the proxy. */
    public static class Chat {

        @RateLimited(resource = "api", entity = "#userId", consume = @Consume(limit = "rps"))
        public String reply(String userId) {
            return userId;
        }
    }

    @State(Scope.Benchmark)
    public static class Wiring {

        RateLimiter limiter;
        Chat plain;
        Chat proxied;
        RateLimitFilter filter;
        RateLimitFilter filterWithoutHeaders;
        Chat noOpAdvised;
        OncePerRequestFilter noOpFilter;
        MockHttpServletRequest request;
        MockHttpServletResponse response;
        FilterChain chain;

        @Setup
        public void setUp() {
            limiter = RateLimiter.builder().build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", Peers.HUGE)));
            plain = new Chat();
            ProxyFactory factory = new ProxyFactory(new Chat());
            factory.setProxyTargetClass(true);
            factory.addAdvisor(new RateLimitedAdvisor(new RateLimitedInterceptor(() -> limiter,
                    new RateLimitedOperationSource(), null)));
            proxied = (Chat) factory.getProxy();
            ProxyFactory noOp = new ProxyFactory(new Chat());
            noOp.setProxyTargetClass(true);
            noOp.addAdvice((MethodInterceptor) MethodInvocation::proceed);
            noOpAdvised = (Chat) noOp.getProxy();

            ZaeLimiterWebProperties properties = new ZaeLimiterWebProperties();
            ZaeLimiterWebProperties.Rule rule = new ZaeLimiterWebProperties.Rule();
            rule.setPaths(List.of("/api/**"));
            rule.setResource("api");
            rule.getEntity().setSource("header");
            rule.getEntity().setHeader("X-Api-Key");
            rule.setConsume(Map.of("rps", 1L));
            properties.setRules(List.of(rule));
            filter = new RateLimitFilter(limiter, properties);
            properties.setHeaders(ZaeLimiterWebProperties.Headers.NONE);
            filterWithoutHeaders = new RateLimitFilter(limiter, properties);
            noOpFilter = new OncePerRequestFilter() {
                @Override
                protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
                        FilterChain filterChain) throws ServletException, IOException {
                    filterChain.doFilter(request, response);
                }
            };
            request = new MockHttpServletRequest("GET", "/api/items");
            request.addHeader("X-Api-Key", "user-1");
            response = new MockHttpServletResponse();
            chain = (req, res) -> { };
        }
    }

    /** The method through the proxy: the advice acquires and closes. */
    @Benchmark
    public String rateLimitedMethod(Wiring state) {
        return state.proxied.reply("user-1");
    }

    /** The same acquire, method call and close, written by hand. */
    @Benchmark
    public String directAcquireAndMethod(Wiring state) {
        try (Lease lease = state.limiter.acquire("user-1", "api", InMemoryBenchmarks.ONE)) {
            return state.plain.reply("user-1");
        }
    }

    /** The request through the filter with one rule and a no-op chain. */
    @Benchmark
    public Object filter(Wiring state) throws ServletException, IOException {
        state.filter.doFilter(state.request, state.response, state.chain);
        return state.response;
    }

    /** The same acquire, no-op chain and close, written by hand. */
    @Benchmark
    public Object directAcquireAndChain(Wiring state) throws ServletException, IOException {
        try (Lease lease = state.limiter.acquire(state.request.getHeader("X-Api-Key"), "api",
                InMemoryBenchmarks.ONE)) {
            state.chain.doFilter(state.request, state.response);
        }
        return state.response;
    }
}
