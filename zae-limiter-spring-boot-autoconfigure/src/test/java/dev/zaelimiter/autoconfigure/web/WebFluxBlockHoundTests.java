package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * BlockHound is really watching the event loop of {@link WebFluxStackScenariosTests}: it catches a deliberate blocking
 * call in a handler, and a store that blocks on I/O is caught when called inline but passes once offloaded, which
 * is what the auto-configuration does for every store but the in-memory ones.
 */
class WebFluxBlockHoundTests {

    private static final String R = WebStackScenarios.R;
    private static final String[] PROPERTIES = WebStackScenarios.with(WebStackScenarios.COMMON,
            WebStackScenarios.BY_HEADER);

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    @RestController
    static class Sleepy {

        @GetMapping("/public/sleep")
        String sleep() {
            try {
                Thread.sleep(1);
                return "slept";
            } catch (BlockingOperationError e) {
                return "caught: " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }
    }

    /** An in-memory store that sleeps a millisecond before every call, as a store doing network I/O blocks. */
    static LimiterStore blockingStore() {
        InMemoryStore delegate = new InMemoryStore();
        return (LimiterStore) Proxy.newProxyInstance(LimiterStore.class.getClassLoader(),
                new Class<?>[] {LimiterStore.class}, (proxy, method, args) -> {
                    Thread.sleep(1);
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aBlockingCallOnTheEventLoopIsCaught() {
        WebFluxStackScenariosTests.runner().withUserConfiguration(Sleepy.class).withPropertyValues(PROPERTIES)
                .run(context -> WebFluxStackScenariosTests.serve(context, client -> {
                    WebStackScenarios.Answer answer = WebFluxStackScenariosTests.http(client).get("/public/sleep");
                    assertThat(answer.body()).startsWith("caught: Blocking call!").contains("Thread.sleep");
                }));
    }

    @Test
    void aStoreThatBlocksIsOffloadedByTheAutoConfiguration() {
        WebFluxStackScenariosTests.runner().withBean(LimiterStore.class, WebFluxBlockHoundTests::blockingStore)
                .withPropertyValues(PROPERTIES)
                .run(context -> {
                    assertThat(context.getBean(ReactiveRateLimiter.class).offloads()).isTrue();
                    WebFluxStackScenariosTests.serve(context, client -> {
                        WebStackScenarios.Http http = WebFluxStackScenariosTests.http(client);
                        assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(200);
                        assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(200);
                        assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(429);
                    });
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Inline {

        @Bean
        ReactiveRateLimiter reactiveRateLimiter(RateLimiter limiter) {
            return new ReactiveRateLimiter(limiter, null, Mono::delay);
        }
    }

    @Test
    void aStoreThatBlocksCalledInlineIsCaught() {
        WebFluxStackScenariosTests.runner().withBean(LimiterStore.class, WebFluxBlockHoundTests::blockingStore)
                .withUserConfiguration(Inline.class)
                .withPropertyValues(PROPERTIES)
                .run(context -> {
                    assertThat(context.getBean(ReactiveRateLimiter.class).offloads()).isFalse();
                    WebFluxStackScenariosTests.serve(context, client -> {
                        WebStackScenarios.Http http = WebFluxStackScenariosTests.http(client);
                        assertThat(http.get("/api/items", "X-Api-Key", "alice").status()).isEqualTo(500);
                        RateLimiter limiter = context.getBean(RateLimiter.class);
                        assertThat(limiter.available("alice", "api")).containsEntry("rpm", 2L);
                    });
                });
    }
}
