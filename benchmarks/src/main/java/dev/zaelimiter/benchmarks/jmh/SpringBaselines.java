package dev.zaelimiter.benchmarks.jmh;

import jakarta.servlet.ServletException;
import org.openjdk.jmh.annotations.Benchmark;

import java.io.IOException;

/**
 * Beside {@link SpringBenchmarks}, on the same wiring: what Spring costs by itself (a proxy with a no-op advice, a
 * {@code OncePerRequestFilter} that only calls the chain) and the starter's filter with its headers switched off,
 * the filters on Tomcat's request and response like {@link SpringBenchmarks#filter}.
 * Not part of the suite's report; run them by name.
 */
public class SpringBaselines {

    /** The method through a proxy with a no-op advice. */
    @Benchmark
    public String noOpAdvisedMethod(SpringBenchmarks.Wiring state) {
        return state.noOpAdvised.reply("user-1");
    }

    /** The request through a {@code OncePerRequestFilter} that only calls the chain. */
    @Benchmark
    public Object noOpFilter(SpringBenchmarks.Wiring state) throws ServletException, IOException {
        state.noOpFilter.doFilter(state.request, state.response, state.chain);
        return state.response;
    }

    /** The request through the filter with one rule and {@code headers: none}. */
    @Benchmark
    public Object filterWithoutHeaders(SpringBenchmarks.Wiring state) throws ServletException, IOException {
        state.filterWithoutHeaders.doFilter(state.request, state.response, state.chain);
        return state.response;
    }
}
