package dev.zaelimiter.docs;

import com.sun.net.httpserver.HttpServer;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.client.OutboundRateLimits;
import dev.zaelimiter.autoconfigure.client.OutboundTarget;
import dev.zaelimiter.autoconfigure.client.ReactiveOutboundRateLimits;
import dev.zaelimiter.autoconfigure.client.UpstreamRateLimitedException;
import dev.zaelimiter.autoconfigure.client.ZaeLimiterClientAutoConfiguration;
import dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.spring.UpstreamRetryAfter;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The examples of {@code docs/outbound-calls.md}, against a real local HTTP server standing for the provider: it
 * answers 429 with {@code Retry-After: 20} while {@code overQuota} is set, else 200.
 */
@DisplayName("docs examples: outbound-calls.md")
class OutboundCallsDocsExamplesTest {

    private final MutableClock clock = MutableClock.start();
    private final AtomicInteger overQuota = new AtomicInteger();
    private final HttpServer server;
    private final String openAiUrl;

    OutboundCallsDocsExamplesTest() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (overQuota.get() > 0) {
                exchange.getResponseHeaders().add("Retry-After", "20");
                exchange.sendResponseHeaders(429, -1);
            } else {
                exchange.getResponseHeaders().add("X-Tokens-Used", "420");
                byte[] body = "{\"text\":\"hi\"}".getBytes();
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
        openAiUrl = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterClientAutoConfiguration.class))
            .withBean(Clock.class, () -> clock)
            .withInitializer(DocsYaml.initializer("outbound-calls.md", "outbound-targets"));

    @Test
    void restClient() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            OutboundRateLimits outbound = context.getBean(OutboundRateLimits.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            // tag::outboundRestClient[]
            RestClient openai = RestClient.builder()
                    .baseUrl(openAiUrl)
                    .requestInterceptor(outbound.interceptor("openai"))
                    .build();

            openai.post().uri("/v1/chat/completions").attribute("apiKeyId", "key-1")
                    .body("{}").retrieve().body(String.class);
            assertThat(limiter.available("key-1", "openai"))
                    .containsEntry("rpm", 499L)
                    .containsEntry("tpm", 30_000L - 420);                 // adjusted from X-Tokens-Used
            // end::outboundRestClient[]
            overQuota.set(1);
            // tag::outboundPause[]
            // the provider answers 429 with "Retry-After: 20"
            assertThatThrownBy(() -> openai.post().uri("/v1/chat/completions").attribute("apiKeyId", "key-1")
                    .body("{}").retrieve().body(String.class))
                    .isInstanceOfSatisfying(UpstreamRateLimitedException.class, e ->
                            assertThat(e.retryAfter(clock.instant())).isEqualTo(Duration.ofSeconds(20)));

            // every caller of every process now waits, without reaching the provider
            assertThatThrownBy(() -> limiter.acquire("key-2", "openai", Map.of("rpm", 1L)))
                    .isInstanceOf(ResourcePausedException.class);
            // end::outboundPause[]
            overQuota.set(0);
            clock.advance(Duration.ofSeconds(20));
            openai.post().uri("/v1/chat/completions").attribute("apiKeyId", "key-2").body("{}").retrieve()
                    .body(String.class);
        });
    }

    @Test
    void eachTargetKeepsItsPolicyWhenTheStoreIsOut() {
        SwitchableStore store = new SwitchableStore();
        runner.withBean(LimiterStore.class, () -> store).run(context -> {
            assertThat(context).hasNotFailed();
            OutboundRateLimits outbound = context.getBean(OutboundRateLimits.class);
            RestClient openai = RestClient.builder().baseUrl(openAiUrl)
                    .requestInterceptor(outbound.interceptor("openai")).build();
            RestClient partner = RestClient.builder().baseUrl(openAiUrl)
                    .requestInterceptor(outbound.interceptor("partner")).build();
            store.down();
            assertThat(openai.post().uri("/v1/chat/completions").attribute("apiKeyId", "key-1").body("{}")
                    .retrieve().body(String.class)).isNotNull();
            assertThatThrownBy(() -> partner.get().uri("/orders").retrieve().body(String.class))
                    .isInstanceOf(StoreUnavailableException.class);
        });
    }

    @Test
    void webClientAndCode() {
        runner.run(context -> {
            ReactiveOutboundRateLimits reactiveOutbound = context.getBean(ReactiveOutboundRateLimits.class);
            OutboundRateLimits outbound = context.getBean(OutboundRateLimits.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            // tag::outboundWebClient[]
            WebClient partner = WebClient.builder()
                    .baseUrl(openAiUrl)
                    .filter(reactiveOutbound.filter("partner"))
                    .build();
            StepVerifier.create(partner.get().uri("/orders").retrieve().bodyToMono(String.class))
                    .expectNextCount(1).verifyComplete();
            assertThat(limiter.available("acme", "partner-api")).containsEntry("rps", 9L);
            // end::outboundWebClient[]
            // tag::outboundInCode[]
            OutboundTarget billing = OutboundTarget.builder("billing")
                    .resource("partner-api")
                    .entity("billing-account")
                    .consume("rps", 1)
                    .maxWait(Duration.ofSeconds(2))
                    .build();
            RestClient client = RestClient.builder().baseUrl(openAiUrl)
                    .requestInterceptor(outbound.interceptor(billing))
                    .build();
            // end::outboundInCode[]
            client.get().uri("/invoices").retrieve().body(String.class);
            assertThat(limiter.available("billing-account", "partner-api")).containsEntry("rps", 9L);
        });
    }

    /** What a provider SDK throws on 429. */
    static class ProviderThrottled extends RuntimeException implements UpstreamRetryAfter {

        private final Duration retryAfter;

        ProviderThrottled(Duration retryAfter) {
            this.retryAfter = retryAfter;
        }

        @Override
        public Duration retryAfter() {
            return retryAfter;
        }
    }

    // tag::outboundPauseOn[]
    static class Completions {

        @RateLimited(resource = "openai", entity = "#keyId", consume = @Consume(limit = "rpm"),
                pauseOn = ProviderThrottled.class)           // implements UpstreamRetryAfter
        public String complete(String keyId, String prompt) {
            throw new ProviderThrottled(Duration.ofSeconds(20));   // what the provider's SDK does on a 429
        }
    }
    // end::outboundPauseOn[]

    @Test
    void pauseOn() {
        runner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        ZaeLimiterAopAutoConfiguration.class))
                .withBean(Completions.class)
                .run(context -> {
                    Completions completions = context.getBean(Completions.class);
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThatThrownBy(() -> completions.complete("key-1", "hi"))
                            .isInstanceOf(ProviderThrottled.class);
                    assertThatThrownBy(() -> limiter.acquire("key-2", "openai", Map.of("rpm", 1L)))
                            .isInstanceOf(ResourcePausedException.class);
                });
    }
}
