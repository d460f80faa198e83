package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.reactive.ZaeLimiterReactiveAutoConfiguration;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.spring.RateLimited;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @RateLimited(onUnavailable = ...)}: each annotation's own policy when the store is out, whatever the
 * limiter's, on plain, waiting and reactive methods; more than one value fails at startup.
 */
class RateLimitedOnUnavailableTests {

    private final SwitchableStore store = new SwitchableStore();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterReactiveAutoConfiguration.class, ZaeLimiterAopAutoConfiguration.class))
            .withBean(Clock.class, MutableClock::start)
            .withBean(LimiterStore.class, () -> store)
            .withPropertyValues("zae.limiter.resources.auth.limits.rpm.capacity=100");

    /** A login that fails closed and a read that fails open, whatever the limiter says. */
    static class Routes {

        @RateLimited(resource = "auth", entity = "#user", consume = @Consume(limit = "rpm"),
                onUnavailable = Unavailable.BLOCK)
        public String login(String user) {
            return "signed in " + user;
        }

        @RateLimited(resource = "auth", entity = "#user", consume = @Consume(limit = "rpm"), maxWait = "1s",
                onUnavailable = Unavailable.BLOCK)
        public String loginWaiting(String user) {
            return "signed in " + user;
        }

        @RateLimited(resource = "auth", entity = "#user", consume = @Consume(limit = "rpm"),
                onUnavailable = Unavailable.ALLOW)
        public String read(String user) {
            Unavailable applied = RateLimitContext.currentLease().orElseThrow().onUnavailable();
            return "read by " + user + " (" + applied.name().toLowerCase(java.util.Locale.ROOT) + ")";
        }

        @RateLimited(resource = "auth", entity = "#user", consume = @Consume(limit = "rpm"))
        public String asTheLimiterSays(String user) {
            return "plain " + user;
        }

        @RateLimited(resource = "auth", entity = "#user", consume = @Consume(limit = "rpm"),
                onUnavailable = Unavailable.BLOCK)
        public Mono<String> loginReactive(String user) {
            return Mono.just("signed in " + user);
        }

        @RateLimited(resource = "auth", entity = "#user", consume = @Consume(limit = "rpm"),
                onUnavailable = Unavailable.ALLOW)
        public Mono<String> readReactive(String user) {
            return Mono.just("read by " + user);
        }
    }

    static class Misdeclared {

        @RateLimited(resource = "auth", entity = "#user", consume = @Consume(limit = "rpm"),
                onUnavailable = {Unavailable.BLOCK, Unavailable.ALLOW})
        public String both(String user) {
            return user;
        }
    }

    @Test
    void eachAnnotationAppliesItsOwnPolicyUnderAnAllowingLimiter() {
        runner.withBean(Routes.class).withPropertyValues("zae.limiter.on-unavailable=allow").run(context -> {
            assertThat(context).hasNotFailed();
            Routes routes = context.getBean(Routes.class);
            store.down();
            assertThatThrownBy(() -> routes.login("alice")).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> routes.loginWaiting("alice")).isInstanceOf(StoreUnavailableException.class);
            assertThat(routes.read("alice")).isEqualTo("read by alice (allow)");
            assertThat(routes.asTheLimiterSays("alice")).isEqualTo("plain alice");
            StepVerifier.create(routes.loginReactive("alice")).expectError(StoreUnavailableException.class).verify();
            StepVerifier.create(routes.readReactive("alice")).expectNext("read by alice").verifyComplete();
            store.up();
            assertThat(routes.login("alice")).isEqualTo("signed in alice");
        });
    }

    @Test
    void eachAnnotationAppliesItsOwnPolicyUnderABlockingLimiter() {
        runner.withBean(Routes.class).withPropertyValues("zae.limiter.on-unavailable=block").run(context -> {
            assertThat(context).hasNotFailed();
            Routes routes = context.getBean(Routes.class);
            store.down();
            assertThatThrownBy(() -> routes.login("alice")).isInstanceOf(StoreUnavailableException.class);
            assertThat(routes.read("alice")).isEqualTo("read by alice (allow)");
            assertThatThrownBy(() -> routes.asTheLimiterSays("alice")).isInstanceOf(StoreUnavailableException.class);
            StepVerifier.create(routes.readReactive("alice")).expectNext("read by alice").verifyComplete();
            store.up();
        });
    }

    @Test
    void twoPoliciesOnOneAnnotationFailAtStartup() {
        runner.withBean(Misdeclared.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("onUnavailable lists [BLOCK, ALLOW]; give at most one policy")
                .hasMessageContaining("Misdeclared.both"));
    }
}
