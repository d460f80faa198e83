package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.http.server.RequestPath;
import org.springframework.mock.web.MockFilterConfig;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.util.ServletRequestPathUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which rule the servlet filter picks, with rules of literal patterns (matched on the URI) next to rules with
 * wildcards and variables (matched on the path Spring parses), URIs that need decoding, a context path, and a path
 * Spring parsed already; and the headers it sets, on and off.
 */
class RateLimitFilterMatchingTests {

    private final RateLimiter limiter = RateLimiter.builder().clock(MutableClock.start()).build();

    {
        for (String resource : List.of("items", "api", "admin")) {
            limiter.admin().setResourceDefaults(resource, List.of(Limit.perMinute("rpm", 100)));
        }
    }

    private static ZaeLimiterWebProperties.Rule rule(String resource, List<String> methods, String... paths) {
        ZaeLimiterWebProperties.Rule rule = new ZaeLimiterWebProperties.Rule();
        rule.setPaths(List.of(paths));
        rule.setMethods(methods);
        rule.setResource(resource);
        rule.getEntity().setSource("header");
        rule.getEntity().setHeader("X-Api-Key");
        rule.setConsume(Map.of("rpm", 1L));
        return rule;
    }

    private RateLimitFilter filter(ZaeLimiterWebProperties.Headers headers) {
        ZaeLimiterWebProperties properties = new ZaeLimiterWebProperties();
        properties.setHeaders(headers);
        properties.setRules(new ArrayList<>(List.of(
                rule("items", List.of(), "/api/items/{id}"),
                rule("api", List.of(), "/api/**"),
                rule("admin", List.of("POST"), "/admin", "/ops/**"))));
        return new RateLimitFilter(limiter, properties);
    }

    private static MockHttpServletRequest request(String method, String uri) {
        MockHttpServletRequest request = new MockHttpServletRequest(method, uri);
        request.addHeader("X-Api-Key", "alice");
        return request;
    }

    /** The resource the request spent a token of, or "none". */
    private String spentOn(RateLimitFilter filter, MockHttpServletRequest request) throws Exception {
        Map<String, Long> before = available();
        filter.doFilter(request, new MockHttpServletResponse(), (req, res) -> { });
        Map<String, Long> after = available();
        List<String> spent = new ArrayList<>();
        before.forEach((resource, tokens) -> {
            if (!after.get(resource).equals(tokens)) {
                spent.add(resource);
            }
        });
        assertThat(spent).hasSizeLessThanOrEqualTo(1);
        return spent.isEmpty() ? "none" : spent.get(0);
    }

    private Map<String, Long> available() {
        return Map.of("items", limiter.available("alice", "items").get("rpm"),
                "api", limiter.available("alice", "api").get("rpm"),
                "admin", limiter.available("alice", "admin").get("rpm"));
    }

    @Test
    void theFirstMatchingRuleWinsWhateverKindItsPatternsAre() throws Exception {
        RateLimitFilter filter = filter(ZaeLimiterWebProperties.Headers.IETF);
        assertThat(spentOn(filter, request("GET", "/api/items/5"))).isEqualTo("items");
        assertThat(spentOn(filter, request("GET", "/api/items/5/parts"))).isEqualTo("api");
        assertThat(spentOn(filter, request("GET", "/api/items"))).isEqualTo("api");
        assertThat(spentOn(filter, request("GET", "/api"))).isEqualTo("api");
        assertThat(spentOn(filter, request("GET", "/apix"))).isEqualTo("none");
        assertThat(spentOn(filter, request("POST", "/admin"))).isEqualTo("admin");
        assertThat(spentOn(filter, request("GET", "/admin"))).as("method not in the rule").isEqualTo("none");
        assertThat(spentOn(filter, request("POST", "/admin/users"))).isEqualTo("none");
        assertThat(spentOn(filter, request("POST", "/ops/restart"))).isEqualTo("admin");
        assertThat(spentOn(filter, request("POST", "/ops"))).isEqualTo("admin");
        assertThat(spentOn(filter, request("POST", "/opsx"))).isEqualTo("none");
    }

    @Test
    void urisThatNeedDecodingAreMatchedAsSpringParsesThem() throws Exception {
        RateLimitFilter filter = filter(ZaeLimiterWebProperties.Headers.IETF);
        assertThat(spentOn(filter, request("POST", "/adm%69n"))).isEqualTo("admin");
        assertThat(spentOn(filter, request("POST", "/admin;jsessionid=1"))).isEqualTo("admin");
        assertThat(spentOn(filter, request("POST", "/admin/"))).as("no optional trailing slash").isEqualTo("none");
        assertThat(spentOn(filter, request("POST", "//admin"))).isEqualTo("none");
        assertThat(spentOn(filter, request("GET", "/api//items/5"))).isEqualTo("api");
        assertThat(spentOn(filter, request("GET", "/%61pi/x"))).isEqualTo("api");
    }

    @Test
    void theContextPathIsNotPartOfThePathMatched() throws Exception {
        RateLimitFilter filter = filter(ZaeLimiterWebProperties.Headers.IETF);
        MockHttpServletRequest admin = request("POST", "/ctx/admin");
        admin.setContextPath("/ctx");
        assertThat(spentOn(filter, admin)).isEqualTo("admin");
        MockHttpServletRequest api = request("GET", "/ctx/api/x");
        api.setContextPath("/ctx");
        assertThat(spentOn(filter, api)).isEqualTo("api");
        MockHttpServletRequest root = request("GET", "/ctx");
        root.setContextPath("/ctx");
        assertThat(spentOn(filter, root)).isEqualTo("none");
    }

    @Test
    void aPathSpringParsedAlreadyIsTheOneMatched() throws Exception {
        RateLimitFilter filter = filter(ZaeLimiterWebProperties.Headers.IETF);
        MockHttpServletRequest request = request("POST", "/api/x");
        request.setAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE, RequestPath.parse("/admin", null));
        assertThat(spentOn(filter, request)).isEqualTo("admin");
    }

    @Test
    void headersAreSetUnlessSwitchedOff() throws Exception {
        MockHttpServletResponse on = new MockHttpServletResponse();
        filter(ZaeLimiterWebProperties.Headers.IETF).doFilter(request("GET", "/api/x"), on, (req, res) -> { });
        assertThat(on.getHeader("RateLimit-Policy")).isEqualTo("\"rpm\";q=100");
        assertThat(on.getHeader("RateLimit")).isEqualTo("\"rpm\";r=99");

        MockHttpServletResponse off = new MockHttpServletResponse();
        filter(ZaeLimiterWebProperties.Headers.NONE).doFilter(request("GET", "/api/x"), off, (req, res) -> { });
        assertThat(off.getStatus()).isEqualTo(200);
        assertThat(off.getHeaderNames()).isEmpty();
        assertThat(limiter.available("alice", "api")).containsEntry("rpm", 98L);
    }

    @Test
    void theAlreadyFilteredAttributeFollowsTheFilterName() throws Exception {
        RateLimitFilter filter = filter(ZaeLimiterWebProperties.Headers.IETF);
        String unnamed = filter.getAlreadyFilteredAttributeName();
        assertThat(unnamed).isEqualTo(RateLimitFilter.class.getName() + ".FILTERED");
        assertThat(filter.getAlreadyFilteredAttributeName()).isSameAs(unnamed);
        filter.setBeanName("zaeLimiter");
        assertThat(filter.getAlreadyFilteredAttributeName()).isEqualTo("zaeLimiter.FILTERED");
        filter.init(new MockFilterConfig("rateLimitFilter"));
        assertThat(filter.getAlreadyFilteredAttributeName()).isEqualTo("rateLimitFilter.FILTERED");

        MockHttpServletRequest request = request("GET", "/api/x");
        List<Object> seen = new ArrayList<>();
        filter.doFilter(request, new MockHttpServletResponse(),
                (req, res) -> seen.add(req.getAttribute("rateLimitFilter.FILTERED")));
        assertThat(seen).containsExactly(Boolean.TRUE);
        assertThat(request.getAttribute("rateLimitFilter.FILTERED")).isNull();
    }
}
