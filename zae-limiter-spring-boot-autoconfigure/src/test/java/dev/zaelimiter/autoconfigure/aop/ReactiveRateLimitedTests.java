package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.spring.ReactiveRateLimitContext;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.blockhound.BlockHound;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @RateLimited} on methods returning {@code Mono} and {@code Flux}, on the in-memory store with a clock the
 * tests move. "render" has one concurrency slot, so whether a lease is still open shows in whether a second call can
 * take the slot. Subscriptions run on Reactor's parallel scheduler with BlockHound installed, so a blocking call in
 * the reactive path would fail them.
 */
class ReactiveRateLimitedTests {

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install();
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterAopAutoConfiguration.class))
            .withPropertyValues("zae.limiter.store=memory",
                    "zae.limiter.resources.chat.limits.rpm.capacity=2",
                    "zae.limiter.resources.chat.limits.tpm.capacity=1000",
                    "zae.limiter.resources.render.limits.rpm.capacity=100",
                    "zae.limiter.resources.render.limits.inflight.max-in-flight=1")
            .withUserConfiguration(Config.class);

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }

        @Bean
        List<Duration> delays() {
            return new CopyOnWriteArrayList<>();
        }

        /** Waits by moving the test clock, on a non-blocking thread, as a real delay would resume. */
        @Bean
        ReactiveRateLimiter reactiveRateLimiter(RateLimiter limiter, MutableClock clock, List<Duration> delays) {
            return new ReactiveRateLimiter(limiter, null, wait -> Mono.fromRunnable(() -> {
                delays.add(wait);
                clock.advance(wait);
            }).subscribeOn(Schedulers.parallel()));
        }

        @Bean
        Chat chat() {
            return new Chat();
        }
    }

    static class Chat {

        private final AtomicInteger calls = new AtomicInteger();
        private final Sinks.Many<String> stream = Sinks.many().unicast().onBackpressureBuffer();

        /** How many times a method ran (read through the proxy, which has no state of its own). */
        public int calls() {
            return calls.get();
        }

        public Sinks.Many<String> stream() {
            return stream;
        }

        @RateLimited(resource = "chat", entity = "#user", consume = @Consume(limit = "rpm"))
        public Mono<String> reply(String user) {
            calls.incrementAndGet();
            return Mono.just("reply to " + user);
        }

        @RateLimited(resource = "chat", entity = "#user", consume = @Consume(limit = "rpm"))
        public Mono<String> fail(String user) {
            calls.incrementAndGet();
            return Mono.error(new IllegalStateException("provider down"));
        }

        @RateLimited(resource = "chat", entity = "#user", consume = @Consume(limit = "rpm"),
                rollbackOn = IllegalArgumentException.class)
        public Mono<String> failKeepingTheTokens(String user) {
            return Mono.error(new IllegalStateException("provider down"));
        }

        @RateLimited(resource = "chat", entity = "#user", consume = @Consume(limit = "rpm"), maxWait = "40s")
        public Mono<String> patient(String user) {
            return Mono.just("patient " + user);
        }

        @RateLimited(resource = "chat", entity = "#user", consume = @Consume(limit = "rpm"), maxWait = "20s")
        public Mono<String> hasty(String user) {
            calls.incrementAndGet();
            return Mono.just("hasty " + user);
        }

        @RateLimited(resource = "chat", entity = "#user", consume = @Consume(limit = "tpm", amount = "#maxTokens"))
        public Mono<Integer> complete(String user, int maxTokens) {
            int used = 120;
            return Mono.just(used).flatMap(tokens -> ReactiveRateLimitContext.lease("chat")
                    .doOnNext(lease -> lease.adjust("tpm", tokens - maxTokens))
                    .thenReturn(tokens));
        }

        @RateLimited(resource = "render", entity = "#user", consume = @Consume(limit = "rpm"))
        public Flux<String> render(String user) {
            calls.incrementAndGet();
            return stream.asFlux();
        }

        @RateLimited(resource = "render", entity = "#user", consume = @Consume(limit = "rpm"))
        public Mono<String> hang(String user) {
            calls.incrementAndGet();
            return Mono.never();
        }

        @RateLimited(resource = "render", entity = "#user", consume = @Consume(limit = "rpm"))
        public Mono<String> quick(String user) {
            return Mono.just("rendered");
        }
    }

    private void run(Consumer<AssertableApplicationContext> test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            test.accept(context);
        });
    }

    private static <T> T onParallel(Mono<T> mono) {
        return mono.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10));
    }

    @Test
    void nothingIsAcquiredUntilSubscriptionAndEachSubscriptionIsACall() {
        run(context -> {
            Chat chat = context.getBean(Chat.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            Mono<String> reply = chat.reply("alice");
            assertThat(chat.calls()).isEqualTo(0);
            assertThat(limiter.available("alice", "chat")).containsEntry("rpm", 2L);

            assertThat(onParallel(reply)).isEqualTo("reply to alice");
            assertThat(chat.calls()).isEqualTo(1);
            assertThat(limiter.available("alice", "chat")).containsEntry("rpm", 1L);
            assertThat(onParallel(reply)).isEqualTo("reply to alice");
            assertThat(limiter.available("alice", "chat")).containsEntry("rpm", 0L);

            StepVerifier.create(reply.subscribeOn(Schedulers.parallel()))
                    .expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
            assertThat(chat.calls()).as("a refused call does not run the method").isEqualTo(2);
        });
    }

    @Test
    void theLeaseStaysOpenWhileAFluxEmitsAndClosesOnCompletion() {
        run(context -> {
            Chat chat = context.getBean(Chat.class);
            List<String> received = new CopyOnWriteArrayList<>();
            Disposable streaming = chat.render("alice").subscribeOn(Schedulers.parallel()).subscribe(received::add);
            chat.stream().tryEmitNext("frame 1");
            await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("frame 1"));
            StepVerifier.create(chat.quick("alice").subscribeOn(Schedulers.parallel()))
                    .expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
            chat.stream().tryEmitComplete();
            await().atMost(Duration.ofSeconds(10)).until(streaming::isDisposed);
            assertThat(received).containsExactly("frame 1");
            assertThat(onParallel(chat.quick("alice"))).as("the slot came back").isEqualTo("rendered");
            assertThat(context.getBean(RateLimiter.class).available("alice", "render")).containsEntry("rpm", 98L);
        });
    }

    @Test
    void anErrorRollsBackAsRollbackOnSays() {
        run(context -> {
            Chat chat = context.getBean(Chat.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            StepVerifier.create(chat.fail("alice").subscribeOn(Schedulers.parallel()))
                    .expectErrorMessage("provider down").verify(Duration.ofSeconds(10));
            assertThat(limiter.available("alice", "chat")).as("rolled back").containsEntry("rpm", 2L);
            StepVerifier.create(chat.failKeepingTheTokens("alice").subscribeOn(Schedulers.parallel()))
                    .expectErrorMessage("provider down").verify(Duration.ofSeconds(10));
            assertThat(limiter.available("alice", "chat")).as("not in rollbackOn: kept").containsEntry("rpm", 1L);
        });
    }

    @Test
    void cancellationRollsBackAndFreesTheSlot() {
        run(context -> {
            Chat chat = context.getBean(Chat.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            Disposable hanging = chat.hang("alice").subscribeOn(Schedulers.parallel()).subscribe();
            await().atMost(Duration.ofSeconds(10)).until(() -> chat.calls() == 1);
            StepVerifier.create(chat.quick("alice").subscribeOn(Schedulers.parallel()))
                    .expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
            hanging.dispose();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> limiter.available("alice", "render").get("rpm") == 100L);
            assertThat(onParallel(chat.quick("alice"))).isEqualTo("rendered");
            assertThat(limiter.available("alice", "render")).as("the cancelled call was rolled back")
                    .containsEntry("rpm", 99L);
        });
    }

    @Test
    void maxWaitWaitsByDelayNotBySleepingAndGivesUpWhenTheWaitDoesNotFit() {
        run(context -> {
            Chat chat = context.getBean(Chat.class);
            @SuppressWarnings("unchecked")
            List<Duration> delays = context.getBean("delays", List.class);
            onParallel(chat.reply("alice"));
            onParallel(chat.reply("alice"));
            assertThat(onParallel(chat.patient("alice"))).isEqualTo("patient alice");
            assertThat(delays).singleElement().satisfies(wait -> assertThat(wait)
                    .as("with jitter").isBetween(Duration.ofSeconds(30), Duration.ofSeconds(31)));
            StepVerifier.create(chat.hasty("alice").subscribeOn(Schedulers.parallel()))
                    .expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
            assertThat(delays).as("30 s does not fit in 20 s: refused at once").hasSize(1);
            assertThat(chat.calls()).isEqualTo(2);
        });
    }

    @Test
    void theLeaseIsInTheReactorContextForAdjustingFromTheResult() {
        run(context -> {
            Chat chat = context.getBean(Chat.class);
            assertThat(onParallel(chat.complete("alice", 500))).isEqualTo(120);
            assertThat(context.getBean(RateLimiter.class).available("alice", "chat")).containsEntry("tpm", 880L);
        });
    }
}
