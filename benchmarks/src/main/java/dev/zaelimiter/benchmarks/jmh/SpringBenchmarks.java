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
import org.apache.catalina.connector.Connector;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardContext;
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
 * {@code close}. The filter runs on Tomcat's own request and response, as in a Spring Boot application on its default
 * container; {@link #filterOnMocks} keeps the earlier figures on Spring's {@code MockHttpServletRequest} comparable.
 * The wiring also holds what {@link SpringBaselines} measures.
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
        HttpServletRequest request;
        HttpServletResponse response;
        MockHttpServletRequest mockRequest;
        MockHttpServletResponse mockResponse;
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
            Request tomcatRequest = tomcatRequest("GET", "/api/items", "X-Api-Key", "user-1");
            request = tomcatRequest.getRequest();
            response = tomcatRequest.getResponse().getResponse();
            mockRequest = new MockHttpServletRequest("GET", "/api/items");
            mockRequest.addHeader("X-Api-Key", "user-1");
            mockResponse = new MockHttpServletResponse();
            chain = (req, res) -> { };
        }

        /**
         * Tomcat's request and response for one request with one header, as its connector builds them (a coyote
         * request and response under catalina ones) and maps them to the root application, without starting a
         * server: neither the connector (so no port is bound) nor the context is started; the context is there
         * because the request tells it of attribute changes, with no listener registered. The request's
         * {@code getRequest()} and the response's {@code getResponse()} are the facades a filter is given.
         */
        static Request tomcatRequest(String method, String uri, String header, String value) {
            org.apache.coyote.Request coyoteRequest = new org.apache.coyote.Request();
            org.apache.coyote.Response coyoteResponse = new org.apache.coyote.Response();
            coyoteRequest.setResponse(coyoteResponse);
            coyoteRequest.method().setString(method);
            coyoteRequest.requestURI().setString(uri);
            coyoteRequest.decodedURI().setString(uri);
            coyoteRequest.getMimeHeaders().addValue(header).setString(value);
            Request request = new Request(new Connector());
            request.setCoyoteRequest(coyoteRequest);
            request.getMappingData().context = new StandardContext();
            Response response = new Response();
            response.setCoyoteResponse(coyoteResponse);
            response.setRequest(request);
            request.setResponse(response);
            return request;
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

    /** The request through the filter with one rule and a no-op chain, on Tomcat's request and response. */
    @Benchmark
    public Object filter(Wiring state) throws ServletException, IOException {
        state.filter.doFilter(state.request, state.response, state.chain);
        return state.response;
    }

    /** The same on Spring's mock request and response, whose header maps cost more than Tomcat's. */
    @Benchmark
    public Object filterOnMocks(Wiring state) throws ServletException, IOException {
        state.filter.doFilter(state.mockRequest, state.mockResponse, state.chain);
        return state.mockResponse;
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

    /** {@link #directAcquireAndChain} on Spring's mock request and response. */
    @Benchmark
    public Object directAcquireAndChainOnMocks(Wiring state) throws ServletException, IOException {
        try (Lease lease = state.limiter.acquire(state.mockRequest.getHeader("X-Api-Key"), "api",
                InMemoryBenchmarks.ONE)) {
            state.chain.doFilter(state.mockRequest, state.mockResponse);
        }
        return state.mockResponse;
    }
}
