package dev.zaelimiter.docs;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.autoconfigure.web.ZaeLimiterWebFluxAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.spring.ReactiveRateLimitContext;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.test.StepVerifier;

import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of {@code docs/webflux.md}: the YAML of {@code docs/http-filter.md}, unchanged, limiting a WebFlux
 * application on Reactor Netty under BlockHound, and the reactive {@code @RateLimited} example.
 */
@DisplayName("docs examples: webflux.md")
class WebFluxDocsExamplesTest {

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    @EnableWebFlux
    @RestController
    static class Api {

        @GetMapping("/api/items")
        Mono<String> items() {
            return Mono.just("ok");
        }
    }

    @Test
    void theHttpFilterPagesYamlLimitsAWebFluxApplication() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterWebFluxAutoConfiguration.class))
                .withUserConfiguration(Api.class)
                .withBean(Clock.class, MutableClock::start)
                .withPropertyValues("RATE_LIMIT_HASH_KEY=a-long-random-secret-from-the-env")
                .withInitializer(DocsYaml.initializer("http-filter.md", "filter-example"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                            .handle(new ReactorHttpHandlerAdapter(WebHttpHandlerBuilder.applicationContext(context)
                                    .build())).bindNow();
                    try {
                        WebTestClient client = WebTestClient.bindToServer()
                                .baseUrl("http://127.0.0.1:" + server.port()).build();
                        client.get().uri("/api/items").exchange()
                                .expectStatus().isOk()
                                .expectHeader().valueEquals("RateLimit-Policy", "\"rpm\";q=100")
                                .expectHeader().valueEquals("RateLimit", "\"rpm\";r=99");
                        for (int i = 0; i < 99; i++) {
                            client.get().uri("/api/items").exchange().expectStatus().isOk();
                        }
                        client.get().uri("/api/items").exchange()
                                .expectStatus().isEqualTo(429)
                                .expectHeader().valueEquals("Retry-After", "1")
                                .expectHeader().valueEquals("RateLimit", "\"rpm\";r=0;t=1")
                                .expectBody()
                                .jsonPath("$.detail").isEqualTo("Limit 'rpm' on resource 'api' has 0 tokens"
                                        + " available and the request needs 1; retry after 1 second.")
                                .jsonPath("$.instance").isEqualTo("/api/items");
                    } finally {
                        server.disposeNow();
                    }
                });
    }

    /** An answer and the tokens it really used. */
    record Answer(String text, long tokens) {
    }

    /** Stands for a reactive model client. */
    static class Model {
        Mono<Answer> ask(String prompt) {
            return Mono.just(new Answer("hi", 120));
        }
    }

    // tag::webfluxRateLimited[]
    static class Assistant {

        private final Model model = new Model();

        @RateLimited(resource = "llm", entity = "#user",
                consume = {@Consume(limit = "rpm"), @Consume(limit = "tpm", amount = "#maxTokens")})
        public Mono<Answer> ask(String user, String prompt, long maxTokens) {
            return model.ask(prompt)
                    .flatMap(answer -> ReactiveRateLimitContext.lease("llm")          // the lease of this call
                            .doOnNext(lease -> lease.adjust("tpm", answer.tokens() - maxTokens))
                            .thenReturn(answer));
        }
    }
    // end::webfluxRateLimited[]

    @Test
    void reactiveRateLimited() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        ZaeLimiterAutoConfiguration.class, ZaeLimiterReactiveAutoConfiguration.class,
                        ZaeLimiterAopAutoConfiguration.class))
                .withPropertyValues("zae.limiter.store=memory")
                .withBean(Clock.class, MutableClock::start)
                .withInitializer(DocsYaml.initializer("webflux.md", "webflux-limits"))
                .withBean(Assistant.class)
                .run(context -> {
                    Assistant assistant = context.getBean(Assistant.class);
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    // tag::webfluxRateLimitedUsage[]
                    Mono<Answer> answer = assistant.ask("alice", "Say hi", 500);   // nothing acquired yet
                    assertThat(limiter.available("alice", "llm")).containsEntry("rpm", 2L);

                    StepVerifier.create(answer).expectNextCount(1).verifyComplete();
                    assertThat(limiter.available("alice", "llm"))
                            .containsEntry("rpm", 1L)
                            .containsEntry("tpm", 10_000L - 120);                  // adjusted to what it used

                    StepVerifier.create(answer).expectNextCount(1).verifyComplete();   // each subscription a call
                    StepVerifier.create(answer).expectError(RateLimitExceededException.class).verify();
                    // end::webfluxRateLimitedUsage[]
                    StepVerifier.create(answer.subscribeOn(Schedulers.parallel()))
                            .expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
                });
    }
}
