package dev.zaelimiter.autoconfigure.client;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.autoconfigure.LimiterStoreDecorator;
import dev.zaelimiter.autoconfigure.RateLimiterBuilderCustomizer;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The outbound interceptor ({@code RestClient}) and filter function ({@code WebClient}) against a real local HTTP
 * server that answers 429 or 503 with {@code Retry-After}. Waiting moves the test clock; BlockHound watches the
 * WebClient's event loop.
 */
class OutboundRateLimitsTests {

    private static final String T = "zae.limiter.client.targets.provider.";

    private final FakeUpstream upstream;

    OutboundRateLimitsTests() throws IOException {
        upstream = new FakeUpstream();
    }

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    @AfterEach
    void stop() {
        upstream.close();
    }

    @Configuration(proxyBeanMethods = false)
    static class Clocks {

        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }

        @Bean
        List<Duration> waits() {
            return new CopyOnWriteArrayList<>();
        }

        @Bean
        RateLimiterBuilderCustomizer waitingMovesTheClock(MutableClock clock, List<Duration> waits) {
            return builder -> builder.sleeper(wait -> {
                waits.add(wait);
                clock.advance(wait);
            });
        }

        @Bean
        ReactiveRateLimiter reactiveRateLimiter(RateLimiter limiter, MutableClock clock, List<Duration> waits) {
            return new ReactiveRateLimiter(limiter, null, wait -> Mono.fromRunnable(() -> {
                waits.add(wait);
                clock.advance(wait);
            }));
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterClientAutoConfiguration.class))
            .withUserConfiguration(Clocks.class)
            .withPropertyValues("zae.limiter.resources.provider.limits.rpm.capacity=100",
                    "zae.limiter.resources.provider.limits.tpm.capacity=1000",
                    T + "resource=provider", T + "entity.id=shared", T + "consume.rpm=1");

    private RestClient restClient(OutboundRateLimits outbound) {
        return RestClient.builder().baseUrl(upstream.url()).requestInterceptor(outbound.interceptor("provider"))
                .build();
    }

    @Test
    void anAdmittedCallConsumesAndCloses() {
        runner.run(context -> {
            RestClient client = restClient(context.getBean(OutboundRateLimits.class));
            assertThat(client.get().uri("/v1/chat").retrieve().body(String.class)).isEqualTo("ok");
            assertThat(context.getBean(RateLimiter.class).available("shared", "provider")).containsEntry("rpm", 99L);
        });
    }

    @Test
    void anUpstream429PausesTheResourceForEveryCallerRollsBackAndThrows() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            MutableClock clock = context.getBean(MutableClock.class);
            RestClient client = restClient(context.getBean(OutboundRateLimits.class));
            upstream.then(429, Map.of("Retry-After", "20"));
            Instant now = clock.instant();
            assertThatThrownBy(() -> client.get().uri("/v1/chat").retrieve().body(String.class))
                    .isInstanceOfSatisfying(UpstreamRateLimitedException.class, e -> {
                        assertThat(e.status()).isEqualTo(429);
                        assertThat(e.resource()).isEqualTo("provider");
                        assertThat(e.pausedUntil()).isEqualTo(now.plusSeconds(20));
                    });
            assertThat(limiter.available("shared", "provider")).as("rolled back").containsEntry("rpm", 100L);
            assertThat(limiter.inspect("anyone", "provider").pausedUntil()).isEqualTo(now.plusSeconds(20));

            // every caller of the resource, through the client or not, is held back without reaching the upstream
            assertThatThrownBy(() -> client.get().uri("/v1/chat").retrieve().body(String.class))
                    .isInstanceOf(ResourcePausedException.class);
            assertThatThrownBy(() -> limiter.acquire("other", "provider", Map.of("rpm", 1L)))
                    .isInstanceOf(ResourcePausedException.class);
            assertThat(upstream.requests()).isEqualTo(1);

            clock.advance(Duration.ofSeconds(20));
            assertThat(client.get().uri("/v1/chat").retrieve().body(String.class)).isEqualTo("ok");
        });
    }

    @Test
    void a503WithAnHttpDatePausesUntilThatDate() {
        runner.run(context -> {
            MutableClock clock = context.getBean(MutableClock.class);
            Instant until = clock.instant().plusSeconds(90).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
            upstream.then(503, Map.of("Retry-After",
                    DateTimeFormatter.RFC_1123_DATE_TIME.format(until.atOffset(ZoneOffset.UTC))));
            RestClient client = restClient(context.getBean(OutboundRateLimits.class));
            assertThatThrownBy(() -> client.get().uri("/v1/chat").retrieve().body(String.class))
                    .isInstanceOfSatisfying(UpstreamRateLimitedException.class,
                            e -> assertThat(e.pausedUntil()).isEqualTo(until));
        });
    }

    @Test
    void aPauseThatFitsInMaxWaitIsWaitedForAndTheCallRetriedOnce() {
        runner.withPropertyValues(T + "max-wait=30s").run(context -> {
            @SuppressWarnings("unchecked")
            List<Duration> waits = context.getBean("waits", List.class);
            upstream.then(429, Map.of("Retry-After", "5"));
            RestClient client = restClient(context.getBean(OutboundRateLimits.class));
            assertThat(client.get().uri("/v1/chat").retrieve().body(String.class)).isEqualTo("ok");
            assertThat(upstream.requests()).isEqualTo(2);
            assertThat(waits).singleElement().satisfies(wait ->
                    assertThat(wait).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(6)));
            assertThat(context.getBean(RateLimiter.class).available("shared", "provider")).containsEntry("rpm", 99L);

            upstream.then(429, Map.of("Retry-After", "60"));
            assertThatThrownBy(() -> client.get().uri("/v1/chat").retrieve().body(String.class))
                    .as("60 s does not fit in 30 s").isInstanceOf(UpstreamRateLimitedException.class);
            assertThat(upstream.requests()).isEqualTo(3);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "soon", "0", "Sun, 06 Nov 1994 08:49:37 GMT"})
    void aPausingStatusWithoutAUsableRetryAfterIsReturnedAsItCameWithItsLeaseRolledBack(String retryAfter) {
        runner.withPropertyValues(T + "max-wait=30s").run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            upstream.then(429, retryAfter.isEmpty() ? Map.of() : Map.of("Retry-After", retryAfter));
            int status = restClient(context.getBean(OutboundRateLimits.class)).get().uri("/v1/chat")
                    .exchange((request, response) -> response.getStatusCode().value());
            assertThat(status).isEqualTo(429);
            assertThat(limiter.available("shared", "provider")).as("rolled back").containsEntry("rpm", 100L);
            assertThat(limiter.inspect("shared", "provider").pausedUntil()).as("not paused").isNull();
            assertThat(upstream.requests()).as("not retried").isEqualTo(1);

            upstream.then(503, retryAfter.isEmpty() ? Map.of() : Map.of("Retry-After", retryAfter));
            StepVerifier.create(webClient(context.getBean(ReactiveOutboundRateLimits.class)).get().uri("/v1/chat")
                    .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value())))
                    .expectNext(503).verifyComplete();
            assertThat(limiter.available("shared", "provider")).as("rolled back").containsEntry("rpm", 100L);
            assertThat(limiter.inspect("shared", "provider").pausedUntil()).as("not paused").isNull();
            assertThat(upstream.requests()).as("not retried").isEqualTo(2);
        });
    }

    /** Records the store writes that pause and that give tokens back, in the order they reach the store. */
    @Configuration(proxyBeanMethods = false)
    static class StoreWrites {

        @Bean
        List<String> storeWrites() {
            return new CopyOnWriteArrayList<>();
        }

        @Bean
        LimiterStoreDecorator recordingStoreWrites(List<String> storeWrites) {
            return store -> (LimiterStore) Proxy.newProxyInstance(LimiterStore.class.getClassLoader(),
                    new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                        if (method.getName().equals("putPause") || method.getName().equals("apply")) {
                            storeWrites.add(method.getName());
                        }
                        try {
                            return method.invoke(store, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    @Test
    void theUpstreamIsPausedBeforeTheLeaseIsRolledBackSoThatNoWokenWaiterCallsIt() {
        runner.withUserConfiguration(StoreWrites.class).run(context -> {
            @SuppressWarnings("unchecked")
            List<String> writes = context.getBean("storeWrites", List.class);
            writes.clear();
            upstream.then(429, Map.of("Retry-After", "20"));
            assertThatThrownBy(() -> restClient(context.getBean(OutboundRateLimits.class)).get().uri("/v1/chat")
                    .retrieve().body(String.class)).isInstanceOf(UpstreamRateLimitedException.class);
            assertThat(writes).containsExactly("putPause", "apply");

            context.getBean(RateLimiter.class).resume("provider");
            writes.clear();
            upstream.then(429, Map.of("Retry-After", "20"));
            StepVerifier.create(webClient(context.getBean(ReactiveOutboundRateLimits.class)).get().uri("/v1/chat")
                    .retrieve().bodyToMono(String.class)).expectError(UpstreamRateLimitedException.class)
                    .verify(Duration.ofSeconds(10));
            assertThat(writes).containsExactly("putPause", "apply");
        });
    }

    @Test
    void registeredLastTheInterceptorRetriesWithWhatEarlierInterceptorsSet() {
        runner.withPropertyValues(T + "max-wait=30s").run(context -> {
            RestClient client = RestClient.builder().baseUrl(upstream.url())
                    .requestInterceptor((request, body, execution) -> {
                        request.getHeaders().set("X-Trace", "t-1");
                        return execution.execute(request, body);
                    })
                    .requestInterceptor(context.getBean(OutboundRateLimits.class).interceptor("provider")).build();
            upstream.then(429, Map.of("Retry-After", "5"));
            assertThat(client.get().uri("/v1/chat").retrieve().body(String.class)).isEqualTo("ok");
            assertThat(upstream.traces()).containsExactly("t-1", "t-1");
        });
    }

    @Test
    void webClientRetriesOnlyARequestWithoutABodyOrWithOneMarkedReplayable() {
        runner.withPropertyValues(T + "max-wait=30s").run(context -> {
            WebClient client = webClient(context.getBean(ReactiveOutboundRateLimits.class));
            upstream.then(429, Map.of("Retry-After", "5"));
            StepVerifier.create(client.post().uri("/v1/chat").bodyValue("{}").retrieve().bodyToMono(String.class))
                    .expectError(UpstreamRateLimitedException.class).verify(Duration.ofSeconds(10));
            assertThat(upstream.requests()).as("a body of unknown kind is not sent twice").isEqualTo(1);

            context.getBean(MutableClock.class).advance(Duration.ofSeconds(5));
            upstream.then(429, Map.of("Retry-After", "5"));
            StepVerifier.create(client.post().uri("/v1/chat")
                    .attribute(RateLimitingExchangeFilterFunction.REPLAYABLE_BODY, true).bodyValue("{}").retrieve()
                    .bodyToMono(String.class)).expectNext("ok").verifyComplete();
            assertThat(upstream.requests()).isEqualTo(3);
        });
    }

    @Test
    void aRetryAfterLongerThanMaxPauseIsCutToIt() {
        runner.run(context -> {
            MutableClock clock = context.getBean(MutableClock.class);
            upstream.then(429, Map.of("Retry-After", "99999999999999999999999"));
            Instant now = clock.instant();
            assertThatThrownBy(() -> restClient(context.getBean(OutboundRateLimits.class)).get().uri("/v1/chat")
                    .retrieve().body(String.class)).isInstanceOfSatisfying(UpstreamRateLimitedException.class,
                            e -> assertThat(e.pausedUntil()).as("the default, 1 h").isEqualTo(now.plusSeconds(3600)));
        });
        runner.withPropertyValues(T + "max-pause=10m").run(context -> {
            MutableClock clock = context.getBean(MutableClock.class);
            Instant now = clock.instant();
            upstream.then(503, Map.of("Retry-After", DateTimeFormatter.RFC_1123_DATE_TIME.format(
                    now.plusSeconds(7200).atOffset(ZoneOffset.UTC))));
            StepVerifier.create(webClient(context.getBean(ReactiveOutboundRateLimits.class)).get().uri("/v1/chat")
                    .retrieve().bodyToMono(String.class)).expectErrorSatisfies(e -> assertThat(e)
                    .isInstanceOfSatisfying(UpstreamRateLimitedException.class,
                            u -> assertThat(u.pausedUntil()).isEqualTo(now.plusSeconds(600))))
                    .verify(Duration.ofSeconds(10));
        });
        runner.withPropertyValues(T + "max-pause=0s").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("zae.limiter.client.targets.provider.max-pause"));
    }

    @Test
    void theEntityComesFromARequestAttributeAndAnEntityPauseHoldsBackOnlyIt() {
        runner.withPropertyValues(T + "entity.id=", T + "entity.attribute=apiKey", T + "pause=entity")
                .run(context -> {
                    RestClient client = restClient(context.getBean(OutboundRateLimits.class));
                    upstream.then(429, Map.of("Retry-After", "20"));
                    assertThatThrownBy(() -> client.get().uri("/v1/chat").attribute("apiKey", "key-1").retrieve()
                            .body(String.class)).isInstanceOf(UpstreamRateLimitedException.class);
                    assertThatThrownBy(() -> client.get().uri("/v1/chat").attribute("apiKey", "key-1").retrieve()
                            .body(String.class)).isInstanceOf(ResourcePausedException.class);
                    assertThat(client.get().uri("/v1/chat").attribute("apiKey", "key-2").retrieve()
                            .body(String.class)).isEqualTo("ok");
                    assertThat(context.getBean(RateLimiter.class).available("key-2", "provider"))
                            .containsEntry("rpm", 99L);
                });
    }

    @Test
    void theLeaseIsAdjustedFromAResponseHeader() {
        runner.withPropertyValues(T + "consume.tpm=10", T + "adjust-from.tpm=X-Tokens-Used").run(context -> {
            upstream.then(200, Map.of("X-Tokens-Used", "250"));
            restClient(context.getBean(OutboundRateLimits.class)).get().uri("/v1/chat").retrieve().body(String.class);
            assertThat(context.getBean(RateLimiter.class).available("shared", "provider")).containsEntry("tpm", 750L);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"-500", "many", "9223372036854775807"})
    void anAdjustHeaderThatCannotBeAppliedLeavesTheCallAndItsLeaseAsConsumed(String used) {
        runner.withPropertyValues(T + "consume.tpm=10", T + "adjust-from.tpm=X-Tokens-Used",
                T + "adjust-from.nope=X-Tokens-Used").run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            upstream.then(200, Map.of("X-Tokens-Used", used));
            assertThat(restClient(context.getBean(OutboundRateLimits.class)).get().uri("/v1/chat").retrieve()
                    .body(String.class)).isEqualTo("ok");
            assertThat(limiter.available("shared", "provider")).containsEntry("rpm", 99L).containsEntry("tpm", 990L);

            upstream.then(200, Map.of("X-Tokens-Used", used));
            StepVerifier.create(webClient(context.getBean(ReactiveOutboundRateLimits.class)).get().uri("/v1/chat")
                    .retrieve().bodyToMono(String.class)).expectNext("ok").verifyComplete();
            assertThat(limiter.available("shared", "provider")).containsEntry("rpm", 98L).containsEntry("tpm", 980L);
        });
    }

    @Test
    void aTargetDeclaredInCodeWorksTheSame() {
        runner.run(context -> {
            OutboundTarget target = OutboundTarget.builder("coded").resource("provider").entity("team-a")
                    .consume("rpm", 2).build();
            RestClient client = RestClient.builder().baseUrl(upstream.url())
                    .requestInterceptor(context.getBean(OutboundRateLimits.class).interceptor(target)).build();
            client.get().uri("/v1/chat").retrieve().body(String.class);
            assertThat(context.getBean(RateLimiter.class).available("team-a", "provider")).containsEntry("rpm", 98L);
        });
    }

    @Test
    void eachTargetAppliesItsOwnPolicyWhenTheStoreIsOut() {
        String strict = "zae.limiter.client.targets.strict.";
        for (String limiterPolicy : List.of("block", "allow")) {
            SwitchableStore store = new SwitchableStore();
            runner.withBean(LimiterStore.class, () -> store).withPropertyValues(
                    "zae.limiter.on-unavailable=" + limiterPolicy, T + "on-unavailable=allow",
                    strict + "resource=provider", strict + "entity.id=shared", strict + "consume.rpm=1",
                    strict + "on-unavailable=block").run(context -> {
                        assertThat(context).hasNotFailed();
                        OutboundRateLimits outbound = context.getBean(OutboundRateLimits.class);
                        assertThat(outbound.target("strict").onUnavailable()).isEqualTo(Unavailable.BLOCK);
                        RestClient open = restClient(outbound);
                        RestClient closed = RestClient.builder().baseUrl(upstream.url())
                                .requestInterceptor(outbound.interceptor("strict")).build();
                        ReactiveOutboundRateLimits reactive = context.getBean(ReactiveOutboundRateLimits.class);
                        WebClient openWeb = webClient(reactive);
                        WebClient closedWeb = WebClient.builder().baseUrl(upstream.url())
                                .filter(reactive.filter("strict")).build();
                        store.down();
                        int before = upstream.requests();
                        assertThat(open.get().uri("/v1/chat").retrieve().body(String.class)).isEqualTo("ok");
                        assertThatThrownBy(() -> closed.get().uri("/v1/chat").retrieve().body(String.class))
                                .isInstanceOf(StoreUnavailableException.class);
                        StepVerifier.create(openWeb.get().uri("/v1/chat").retrieve().bodyToMono(String.class))
                                .expectNext("ok").verifyComplete();
                        StepVerifier.create(closedWeb.get().uri("/v1/chat").retrieve().bodyToMono(String.class))
                                .expectError(StoreUnavailableException.class).verify(Duration.ofSeconds(10));
                        assertThat(upstream.requests() - before).as("only the allowing target's calls went out")
                                .isEqualTo(2);
                        store.up();
                    });
        }
    }

    @Test
    void aBadOnUnavailableFailsStartupNamingTheProperty() {
        runner.withPropertyValues(T + "on-unavailable=sometimes").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("Failed to bind properties under"
                                + " 'zae.limiter.client.targets.provider.on-unavailable'"));
    }

    @Test
    void anInvalidTargetFailsStartupNamingTheProperty() {
        runner.withPropertyValues(T + "entity.attribute=apiKey").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("zae.limiter.client.targets.provider.entity"));
        runner.withPropertyValues(T + "resource=Not A Resource!").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("zae.limiter.client.targets.provider.resource"));
    }

    @Test
    void worksWithoutReactorOrWebFluxOnTheClasspath() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterClientAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("reactor.", "org.springframework.web.reactive."))
                .withPropertyValues("zae.limiter.resources.provider.limits.rpm.capacity=100",
                        T + "resource=provider", T + "entity.id=shared", T + "consume.rpm=1")
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(ReactiveRateLimiter.class)
                            .doesNotHaveBean(ReactiveOutboundRateLimits.class);
                    assertThat(restClient(context.getBean(OutboundRateLimits.class)).get().uri("/v1/chat")
                            .retrieve().body(String.class)).isEqualTo("ok");
                });
    }

    // ---- WebClient

    private WebClient webClient(ReactiveOutboundRateLimits outbound) {
        return WebClient.builder().baseUrl(upstream.url()).filter(outbound.filter("provider")).build();
    }

    @Test
    void webClientAcquiresOnSubscriptionAndPausesOnA429() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            WebClient client = webClient(context.getBean(ReactiveOutboundRateLimits.class));
            Mono<String> call = client.get().uri("/v1/chat").retrieve().bodyToMono(String.class);
            assertThat(limiter.available("shared", "provider")).containsEntry("rpm", 100L);
            StepVerifier.create(call).expectNext("ok").verifyComplete();
            assertThat(limiter.available("shared", "provider")).containsEntry("rpm", 99L);

            upstream.then(429, Map.of("Retry-After", "20"));
            StepVerifier.create(call).expectErrorSatisfies(e -> assertThat(e)
                    .isInstanceOfSatisfying(UpstreamRateLimitedException.class,
                            u -> assertThat(u.status()).isEqualTo(429))).verify(Duration.ofSeconds(10));
            assertThat(limiter.available("shared", "provider")).containsEntry("rpm", 99L);
            StepVerifier.create(call).expectError(ResourcePausedException.class).verify(Duration.ofSeconds(10));
            assertThat(upstream.requests()).isEqualTo(2);
        });
    }

    @Test
    void webClientWaitsForAPauseWithinMaxWaitByDelayAndRetriesOnce() {
        runner.withPropertyValues(T + "max-wait=30s").run(context -> {
            @SuppressWarnings("unchecked")
            List<Duration> waits = context.getBean("waits", List.class);
            upstream.then(429, Map.of("Retry-After", "5"));
            StepVerifier.create(webClient(context.getBean(ReactiveOutboundRateLimits.class)).get().uri("/v1/chat")
                    .retrieve().bodyToMono(String.class)).expectNext("ok").verifyComplete();
            assertThat(upstream.requests()).isEqualTo(2);
            assertThat(waits).singleElement().satisfies(wait -> assertThat(wait)
                    .as("with jitter").isBetween(Duration.ofSeconds(5), Duration.ofMillis(5500)));
        });
    }
}
