package dev.zaelimiter.benchmarks.jmh;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.connector.RequestFacade;
import org.apache.catalina.connector.ResponseFacade;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The filter benchmark's Tomcat request and response answer what the filter asks, and stay the same between calls. */
class SpringBenchmarksTest {

    private final SpringBenchmarks benchmarks = new SpringBenchmarks();
    private final SpringBenchmarks.Wiring wiring = new SpringBenchmarks.Wiring();

    @BeforeEach
    void setUp() {
        wiring.setUp();
    }

    @Test
    void theRequestIsTomcatsFacadeAndAnswersWhatTheFilterAsks() {
        HttpServletRequest request = wiring.request;

        assertThat(request).isInstanceOf(RequestFacade.class);
        assertThat(wiring.response).isInstanceOf(ResponseFacade.class);
        assertThat(request.getMethod()).isEqualTo("GET");
        assertThat(request.getRequestURI()).isEqualTo("/api/items");
        assertThat(request.getContextPath()).isEmpty();
        assertThat(request.getHeader("x-api-key")).isEqualTo("user-1");
        assertThat(request.getDispatcherType()).isEqualTo(DispatcherType.REQUEST);
        assertThat(request.isAsyncStarted()).isFalse();
        request.setAttribute("a", "b");
        assertThat(request.getAttribute("a")).isEqualTo("b");
        request.removeAttribute("a");
        assertThat(request.getAttribute("a")).isNull();
    }

    @Test
    void manyCallsOverwriteTheTwoHeadersAndLeaveNoAttribute() throws Exception {
        List<Object> seenByChain = new ArrayList<>();
        wiring.chain = (req, res) -> seenByChain.add(req.getAttribute(filteredAttribute()));

        for (int i = 0; i < 1_000; i++) {
            assertThat(benchmarks.filter(wiring)).isSameAs(wiring.response);
        }

        HttpServletResponse response = wiring.response;
        assertThat(response.getHeaderNames()).containsExactlyInAnyOrder("RateLimit", "RateLimit-Policy");
        assertThat(response.getHeaders("RateLimit")).hasSize(1);
        assertThat(response.getHeaders("RateLimit-Policy")).hasSize(1);
        assertThat(response.getHeader("RateLimit")).contains("rps");
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(seenByChain).hasSize(1_000).containsOnly(Boolean.TRUE);
        assertThat(Collections.list(wiring.request.getAttributeNames())).isEmpty();
    }

    @Test
    void theDirectCallAndTheMockVariantRunOnTheirOwnPair() throws Exception {
        assertThat(benchmarks.directAcquireAndChain(wiring)).isSameAs(wiring.response);
        assertThat(wiring.response.getHeaderNames()).isEmpty();

        for (int i = 0; i < 10; i++) {
            assertThat(benchmarks.filterOnMocks(wiring)).isSameAs(wiring.mockResponse);
        }
        assertThat(benchmarks.directAcquireAndChainOnMocks(wiring)).isSameAs(wiring.mockResponse);
        assertThat(wiring.mockResponse.getHeaderNames()).containsExactlyInAnyOrder("RateLimit", "RateLimit-Policy");
        assertThat(wiring.response.getHeaderNames()).isEmpty();
    }

    private String filteredAttribute() {
        return wiring.filter.getClass().getName() + ".FILTERED";
    }
}
