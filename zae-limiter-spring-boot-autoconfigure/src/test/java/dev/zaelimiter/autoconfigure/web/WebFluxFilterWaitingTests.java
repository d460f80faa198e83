package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux rule with {@code max-wait} waits for capacity by a delay (here one that moves the test clock, on a
 * non-blocking thread, under BlockHound) when the wait fits, and refuses at once when it does not.
 */
class WebFluxFilterWaitingTests {

    private static final String R = "zae.limiter.web.rules[0].";
    private static final String R1 = "zae.limiter.web.rules[1].";

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    @Configuration(proxyBeanMethods = false)
    static class Delays {

        @Bean
        List<Duration> delays() {
            return new CopyOnWriteArrayList<>();
        }

        @Bean
        ReactiveRateLimiter reactiveRateLimiter(RateLimiter limiter, MutableClock clock, List<Duration> delays) {
            return new ReactiveRateLimiter(limiter, null, wait -> Mono.fromRunnable(() -> {
                delays.add(wait);
                clock.advance(wait);
            }).subscribeOn(Schedulers.parallel()));
        }
    }

    @Test
    void aRequestWaitsWhenTheWaitFitsAndIsRefusedAtOnceWhenItDoesNot() {
        WebFluxStackScenariosTests.runner().withUserConfiguration(Delays.class)
                .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=6",
                        R + "paths[0]=/api/**", R + "resource=api", R + "consume.rpm=1",
                        R + "entity.source=header", R + "entity.header=X-Api-Key", R + "max-wait=15s",
                        R1 + "paths[0]=/public/**", R1 + "resource=api", R1 + "consume.rpm=1",
                        R1 + "entity.source=header", R1 + "entity.header=X-Api-Key", R1 + "max-wait=5s")
                .run(context -> WebFluxStackScenariosTests.serve(context, client -> {
                    @SuppressWarnings("unchecked")
                    List<Duration> delays = context.getBean("delays", List.class);
                    WebStackScenarios.Http http = WebFluxStackScenariosTests.http(client);
                    for (int i = 0; i < 6; i++) {
                        assertThat(http.get("/api/items", "X-Api-Key", "k1").status()).isEqualTo(200);
                    }
                    assertThat(http.get("/public/hello", "X-Api-Key", "k1").status()).isEqualTo(429);
                    assertThat(delays).as("10 s does not fit in 5 s: refused at once").isEmpty();
                    assertThat(http.get("/api/items", "X-Api-Key", "k1").status()).isEqualTo(200);
                    assertThat(delays).singleElement().satisfies(wait -> assertThat(wait)
                            .as("with jitter").isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11)));
                }));
    }
}
