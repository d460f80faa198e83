package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ResourcePausedException;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.spring.UpstreamRetryAfter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @RateLimited(pauseOn = ...)}: a provider's "slow down" exception pauses the resource for every caller, from
 * a plain method, a {@code CompletableFuture} and a {@code Mono}; a class that cannot say how long fails at startup.
 */
class RateLimitedPauseOnTests {

    private final MutableClock clock = MutableClock.start();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterAopAutoConfiguration.class))
            .withBean(Clock.class, () -> clock)
            .withPropertyValues("zae.limiter.store=memory", "zae.limiter.resources.provider.limits.rpm.capacity=100");

    /** What a provider's client throws on 429. */
    static class ProviderThrottled extends RuntimeException implements UpstreamRetryAfter {

        private final Duration retryAfter;

        ProviderThrottled(Duration retryAfter) {
            super("429 from the provider");
            this.retryAfter = retryAfter;
        }

        @Override
        public Duration retryAfter() {
            return retryAfter;
        }
    }

    static class Provider {

        final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        @RateLimited(resource = "provider", entity = "#user", consume = @Consume(limit = "rpm"),
                pauseOn = ProviderThrottled.class)
        public String call(String user, boolean throttled) {
            calls.incrementAndGet();
            if (throttled) {
                throw new ProviderThrottled(Duration.ofSeconds(20));
            }
            return "ok";
        }

        @RateLimited(resource = "provider", entity = "#user", consume = @Consume(limit = "rpm"),
                pauseOn = ProviderThrottled.class)
        public CompletableFuture<String> callAsync(String user) {
            return CompletableFuture.failedFuture(new ProviderThrottled(Duration.ofSeconds(30)));
        }

        @RateLimited(resource = "provider", entity = "#user", consume = @Consume(limit = "rpm"),
                pauseOn = ProviderThrottled.class)
        public Mono<String> callReactive(String user) {
            return Mono.error(new ProviderThrottled(Duration.ofSeconds(40)));
        }
    }

    static class Misdeclared {
        @RateLimited(resource = "provider", entity = "#user", consume = @Consume(limit = "rpm"),
                pauseOn = IllegalStateException.class)
        public String call(String user) {
            return "ok";
        }
    }

    private Instant pausedUntil(RateLimiter limiter) {
        return limiter.inspect("anyone", "provider").pausedUntil();
    }

    @Test
    void aThrottledCallPausesTheResourceForEveryCaller() {
        runner.withBean(Provider.class).run(context -> {
            Provider provider = context.getBean(Provider.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            assertThatThrownBy(() -> provider.call("alice", true)).isInstanceOf(ProviderThrottled.class);
            assertThat(pausedUntil(limiter)).isEqualTo(clock.instant().plusSeconds(20));
            assertThat(limiter.available("alice", "provider")).as("rolled back").containsEntry("rpm", 100L);

            assertThatThrownBy(() -> provider.call("bob", false)).isInstanceOf(ResourcePausedException.class);
            assertThat(provider.calls()).as("bob's call never ran").isEqualTo(1);
            clock.advance(Duration.ofSeconds(20));
            assertThat(provider.call("bob", false)).isEqualTo("ok");
        });
    }

    @Test
    void aFailedFutureOrPublisherPausesToo() {
        runner.withBean(Provider.class).run(context -> {
            Provider provider = context.getBean(Provider.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            assertThatThrownBy(() -> provider.callAsync("alice").join()).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(ProviderThrottled.class);
            assertThat(pausedUntil(limiter)).as("paused before the caller sees the failure")
                    .isEqualTo(clock.instant().plusSeconds(30));
            limiter.resume("provider");

            StepVerifier.create(provider.callReactive("alice")).expectError(ProviderThrottled.class).verify();
            assertThat(pausedUntil(limiter)).isEqualTo(clock.instant().plusSeconds(40));
        });
    }

    @Test
    void aPauseOnClassThatCannotSayHowLongFailsAtStartup() {
        runner.withBean(Misdeclared.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("pauseOn lists java.lang.IllegalStateException"));
    }
}
