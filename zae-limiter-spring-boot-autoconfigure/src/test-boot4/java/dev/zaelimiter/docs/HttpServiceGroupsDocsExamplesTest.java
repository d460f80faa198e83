package dev.zaelimiter.docs;

import com.sun.net.httpserver.HttpServer;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.client.UpstreamRateLimitedException;
import dev.zaelimiter.autoconfigure.client.ZaeLimiterClientAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.annotation.PostExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The HTTP service client example of {@code docs/outbound-calls.md} (Spring Boot 4), with the page's YAML, against a
 * local server that answers 429 with {@code Retry-After} when told to.
 */
class HttpServiceGroupsDocsExamplesTest {

    // tag::outboundHttpServiceGroup[]
    @HttpExchange("/v1")
    interface Completions {
        @PostExchange("/chat/completions")
        String complete(@RequestBody String request);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "provider", types = Completions.class)
    static class Clients {
    }
    // end::outboundHttpServiceGroup[]

    private final MutableClock clock = MutableClock.start();
    private final AtomicInteger overQuota = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger();
    private final HttpServer server;

    HttpServiceGroupsDocsExamplesTest() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", exchange -> {
            calls.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            if (overQuota.getAndSet(0) > 0) {
                exchange.getResponseHeaders().add("Retry-After", "30");
                exchange.sendResponseHeaders(429, -1);
            } else {
                byte[] body = "{\"text\":\"hi\"}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void theGroupsClientCallsThroughTheTarget() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
                        ImperativeHttpClientAutoConfiguration.class, HttpServiceClientPropertiesAutoConfiguration.class,
                        RestClientAutoConfiguration.class, HttpServiceClientAutoConfiguration.class))
                .withBean(Clock.class, () -> clock)
                .withUserConfiguration(Clients.class)
                .withPropertyValues("PROVIDER_URL=http://127.0.0.1:" + server.getAddress().getPort())
                .withInitializer(DocsYaml.initializer("outbound-calls.md", "outbound-groups"))
                .run(context -> {
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    Completions completions = context.getBean(Completions.class);
                    assertThat(completions.complete("{}")).isEqualTo("{\"text\":\"hi\"}");
                    assertThat(limiter.available("gateway", "openai")).containsEntry("rpm", 499L);

                    overQuota.set(1);
                    assertThatThrownBy(() -> completions.complete("{}"))
                            .isInstanceOf(UpstreamRateLimitedException.class);
                    assertThatThrownBy(() -> completions.complete("{}")).isInstanceOf(ResourcePausedException.class);
                    assertThat(calls).hasValue(2);
                });
    }
}
