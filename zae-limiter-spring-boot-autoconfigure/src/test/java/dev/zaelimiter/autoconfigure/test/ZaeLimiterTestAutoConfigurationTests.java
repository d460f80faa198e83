package dev.zaelimiter.autoconfigure.test;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.store.InPlaceBuckets;
import dev.zaelimiter.store.LimiterStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ZaeLimiterTestAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterTestAutoConfiguration.class,
                    ZaeLimiterAutoConfiguration.class))
            .withPropertyValues("zae.limiter.store=dynamodb", "zae.limiter.dynamodb.table=limits",
                    "zae.limiter.resources.api.limits.rpm.capacity=1");

    @Test
    void anApplicationOnDynamoDbRunsOnTheTestStoreWithTheTestClockAndResets() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LimiterStore.class)).isInstanceOf(ZaeLimiterTestStore.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            ZaeLimiterTestSupport support = context.getBean(ZaeLimiterTestSupport.class);
            limiter.acquire("alice", "api", Map.of("rpm", 1L)).close();
            assertThatThrownBy(() -> limiter.acquire("alice", "api", Map.of("rpm", 1L)))
                    .isInstanceOfSatisfying(RateLimitExceededException.class,
                            e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofMinutes(1)));
            support.advance(Duration.ofSeconds(59));
            assertThatThrownBy(() -> limiter.acquire("alice", "api", Map.of("rpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);
            limiter.pause("api", Duration.ofHours(1));
            support.reset();
            limiter.acquire("alice", "api", Map.of("rpm", 1L)).close();   // full again, pause ended
            assertThat(limiter.admin().getResourceDefaults("api")).hasSize(1);   // declarations stay
        });
    }

    @Test
    void callsDecidedInPlaceAreDecidedSoInTestsTooAndResetFillsTheirBuckets() {
        runner.run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            ZaeLimiterTestSupport support = context.getBean(ZaeLimiterTestSupport.class);
            InPlaceBuckets local = context.getBean(LimiterStore.class).inPlaceBuckets();
            assertThat(local.sharedConfigVersion("alice")).as("the configuration is not loaded while unchanged")
                    .isNotEqualTo(InPlaceBuckets.UNVERSIONED);
            limiter.acquire("alice", "api", Map.of("rpm", 1L)).close();
            limiter.acquire("bob", "api", Map.of("rpm", 1L)).close();      // decided in place: same amounts
            assertThat(limiter.available("bob", "api")).containsEntry("rpm", 0L);

            support.reset();

            assertThat(limiter.available("bob", "api")).containsEntry("rpm", 1L);
            assertThat(limiter.available("alice", "api")).containsEntry("rpm", 1L);
        });
    }

    @Test
    void anApplicationsOwnClockStaysAndSupportSaysSo() {
        Clock own = Clock.systemUTC();
        runner.withBean(Clock.class, () -> own).run(context -> {
            assertThat(context).doesNotHaveBean(ZaeLimiterTestClock.class);
            assertThatThrownBy(() -> context.getBean(ZaeLimiterTestSupport.class).advance(Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("@Primary");
        });
    }
}
