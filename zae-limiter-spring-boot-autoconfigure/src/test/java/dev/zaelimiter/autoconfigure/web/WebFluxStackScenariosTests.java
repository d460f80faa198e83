package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.blockhound.BlockHound;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WebStackScenarios} on the WebFlux filter, over HTTP to a real Reactor Netty server, with BlockHound
 * installed: a blocking call on an event-loop thread (in the filter, the limiter or the in-memory store) would fail
 * the request with a {@code BlockingOperationError}, hence the scenario.
 */
class WebFluxStackScenariosTests extends WebStackScenarios {

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    @Import(TestWebApp.Controller.class)
    static class WebFlux {

        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }
    }

    static ReactiveWebApplicationContextRunner runner() {
        return new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterWebFluxAutoConfiguration.class))
                .withUserConfiguration(WebFlux.class);
    }

    @Override
    void run(List<Class<?>> userConfigurations, String[] properties, Scenario scenario) {
        runner().withUserConfiguration(userConfigurations.toArray(Class<?>[]::new))
                .withPropertyValues(COMMON)
                .withPropertyValues(properties)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    serve(context, client -> scenario.run(http(client), context.getBean(RateLimiter.class),
                            context.getBean(MutableClock.class)));
                });
    }

    interface ClientTest {
        void run(WebTestClient client) throws Exception;
    }

    /** Serves {@code context}'s web handler on Reactor Netty at 127.0.0.1 for the duration of {@code test}. */
    static void serve(ApplicationContext context, ClientTest test) throws Exception {
        ReactorHttpHandlerAdapter adapter = new ReactorHttpHandlerAdapter(
                WebHttpHandlerBuilder.applicationContext(context).build());
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).handle(adapter).bindNow();
        try {
            // a loaded build machine can take longer than the client's default 5 s over a first request
            test.run(WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + server.port())
                    .responseTimeout(Duration.ofSeconds(60)).build());
        } finally {
            server.disposeNow();
        }
    }

    static Http http(WebTestClient client) {
        return (method, path, headers) -> {
            EntityExchangeResult<byte[]> result = client.method(HttpMethod.valueOf(method)).uri(path)
                    .headers(h -> {
                        for (int i = 0; i < headers.length; i += 2) {
                            h.add(headers[i], headers[i + 1]);
                        }
                    })
                    .exchange().expectBody().returnResult();
            Map<String, String> names = new LinkedHashMap<>();
            result.getResponseHeaders().forEach((name, values) ->
                    names.put(name.toLowerCase(Locale.ROOT), values.get(0)));
            byte[] body = result.getResponseBody();
            return new Answer(result.getStatus().value(), names,
                    body == null ? "" : new String(body, StandardCharsets.UTF_8));
        };
    }
}
