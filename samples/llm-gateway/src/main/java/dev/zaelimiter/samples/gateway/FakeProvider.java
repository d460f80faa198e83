package dev.zaelimiter.samples.gateway;

import com.sun.net.httpserver.HttpServer;
import jakarta.annotation.PreDestroy;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the LLM provider, served over real HTTP on a free local port: {@code POST /v1/completions} with
 * {@code {"prompt_tokens": n, "max_tokens": m}} answers {@code {"completion_tokens": min(m, 2n)}}. Like a real
 * provider it can ask for a break: after {@link #slowDownNext(int)}, the next call gets {@code 429} with
 * {@code Retry-After}.
 */
@Component
public class FakeProvider {

    private final ObjectMapper json = new JsonMapper();
    private final HttpServer server;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger slowDownSeconds = new AtomicInteger();

    public FakeProvider() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/completions", exchange -> {
            calls.incrementAndGet();
            JsonNode request = json.readTree(exchange.getRequestBody());
            int retryAfter = slowDownSeconds.getAndSet(0);
            byte[] body;
            if (retryAfter > 0) {
                exchange.getResponseHeaders().add("Retry-After", Integer.toString(retryAfter));
                body = json.writeValueAsBytes(Map.of("error", "rate_limit_exceeded"));
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(429, body.length);
            } else {
                int prompt = request.path("prompt_tokens").asInt();
                int completion = Math.min(request.path("max_tokens").asInt(), 2 * prompt);
                body = json.writeValueAsBytes(Map.of("completion_tokens", completion));
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
            }
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    /** Where the provider listens, such as {@code http://127.0.0.1:54321}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers the next call with 429 and {@code Retry-After: seconds}, as a provider over its quota does. */
    public void slowDownNext(int seconds) {
        slowDownSeconds.set(seconds);
    }

    /** How many calls reached the provider. */
    public int calls() {
        return calls.get();
    }

    @PreDestroy
    void stop() {
        server.stop(0);
    }
}
