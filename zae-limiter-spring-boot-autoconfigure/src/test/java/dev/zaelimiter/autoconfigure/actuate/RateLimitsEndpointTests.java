package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint.BucketDescriptor;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint.EntityDescriptor;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint.LevelDescriptor;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint.LimitDescriptor;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint.LimitStateDescriptor;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint.RateLimitsDescriptor;
import dev.zaelimiter.autoconfigure.actuate.RateLimitsEndpoint.ScheduleDescriptor;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** The endpoint's operations on the in-memory store, with limits declared in properties and a clock the test moves. */
class RateLimitsEndpointTests {

    private final MutableClock clock = MutableClock.start();          // 2026-03-01T00:00:00Z, a Sunday

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterActuatorAutoConfiguration.class))
            .withBean(Clock.class, () -> clock)
            .withPropertyValues(
                    "management.endpoints.web.exposure.include=ratelimits",
                    "zae.limiter.endpoint-writes.resets=true",
                    "zae.limiter.resources.gpt-4.limits.rpm.capacity=10",
                    "zae.limiter.resources.gpt-4.limits.tpm.capacity=1000",
                    "zae.limiter.resources.gpt-4.limits.tpm.soft=true",
                    "zae.limiter.resources.gpt-4.limits.monthly.capacity=5000",
                    "zae.limiter.resources.gpt-4.limits.monthly.reset-schedule[0].cron=0 0 1 * *",
                    "zae.limiter.resources.gpt-4.limits.monthly.reset-schedule[0].tz=America/New_York",
                    "zae.limiter.resources.gpt-4.cascade=true",
                    "zae.limiter.resources.batch.limits.rpm.capacity=100",
                    "zae.limiter.resources.batch.limits.rpm.schedule[0].cron=* 0-5 * * *",
                    "zae.limiter.resources.batch.limits.rpm.schedule[0].scale=2",
                    "zae.limiter.resources[openai/gpt-4].limits.rpm.capacity=3",
                    "zae.limiter.entities.org-1.name=Acme",
                    "zae.limiter.entities.key-1.name=Acme production key",
                    "zae.limiter.entities.key-1.parent=org-1",
                    "zae.limiter.entities.key-1.cascade=true",
                    "zae.limiter.entities.key-1.resources.gpt-4.limits.rpm.capacity=5",
                    "zae.limiter.entities.key-1.resources.gpt-4.limits.tpm.capacity=500",
                    "zae.limiter.entities.vip.disabled=bypass");

    private void run(ContextConsumer<AssertableApplicationContext> test) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            test.accept(context);
        });
    }

    @Test
    void listsTheDeclaredResourcesAndEntities() {
        run(context -> {
            RateLimitsDescriptor list = context.getBean(RateLimitsEndpoint.class).rateLimits();
            assertThat(list.system()).isEmpty();
            assertThat(list.resources()).containsOnlyKeys("gpt-4", "batch", "openai/gpt-4");

            LevelDescriptor gpt4 = list.resources().get("gpt-4");
            assertThat(gpt4.cascade()).isTrue();
            assertThat(gpt4.disabled()).isNull();
            assertThat(gpt4.limits()).extracting(LimitDescriptor::name).containsExactly("rpm", "tpm", "monthly");
            assertThat(gpt4.limits().get(0)).isEqualTo(new LimitDescriptor("rpm", "rate", 10, 10, "PT1M", false,
                    null, null, null, List.of()));
            assertThat(gpt4.limits().get(1).soft()).isTrue();
            assertThat(gpt4.limits().get(2)).isEqualTo(new LimitDescriptor("monthly", "quota", 5000, 0, null,
                    false, "0 0 1 * *", null, "America/New_York", List.of()));

            LimitDescriptor batch = list.resources().get("batch").limits().get(0);
            assertThat(batch.zone()).isEqualTo("UTC");
            assertThat(batch.schedule()).containsExactly(
                    new ScheduleDescriptor("* 0-5 * * *", "UTC", 2.0, null, null, null));

            assertThat(list.entities()).containsOnlyKeys("org-1", "key-1", "vip");
            assertThat(list.entities().get("org-1"))
                    .isEqualTo(new EntityDescriptor("Acme", null, false, null, Map.of()));
            EntityDescriptor key = list.entities().get("key-1");
            assertThat(key.name()).isEqualTo("Acme production key");
            assertThat(key.parent()).isEqualTo("org-1");
            assertThat(key.cascade()).isTrue();
            assertThat(key.resources().get("gpt-4").limits()).extracting(LimitDescriptor::capacity)
                    .containsExactly(5L, 500L);
            assertThat(list.entities().get("vip").disabled()).isEqualTo(DisabledMode.BYPASS);
        });
    }

    @Test
    void readsOneEntityOnOneResourceAfterSomeAcquires() {
        run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 700L, "monthly", 1L)).close();
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 700L, "monthly", 1L)).close();
            clock.advance(Duration.ofSeconds(6));           // rpm drips 1 token back, tpm 100

            BucketDescriptor bucket = context.getBean(RateLimitsEndpoint.class).bucket("user-1", "gpt-4");
            assertThat(bucket.entity()).isEqualTo("user-1");
            assertThat(bucket.resource()).isEqualTo("gpt-4");
            assertThat(bucket.name()).isNull();
            assertThat(bucket.parent()).isNull();
            assertThat(bucket.source()).isEqualTo("RESOURCE");
            assertThat(bucket.disabled()).isEqualTo(DisabledMode.ENABLED);
            assertThat(bucket.cascadesTo()).isNull();
            assertThat(bucket.limits()).containsExactly(
                    new LimitStateDescriptor("rpm", 10, 9, 10, "PT1M", false, false, null, null, 2),
                    new LimitStateDescriptor("tpm", 1000, -300, 1000, "PT1M", true, true, null, null, 1400),
                    // midnight on March 1st in New York, where it is still February 28th
                    new LimitStateDescriptor("monthly", 5000, 4998, 0, null, false, false, null,
                            "2026-03-01T05:00:00Z", 2));
        });
    }

    @Test
    void showsAnUpstreamPauseInForce() {
        run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            assertThat(endpoint.bucket("user-1", "gpt-4").pausedUntil()).isNull();
            java.time.Instant until = limiter.pause("gpt-4", Duration.ofSeconds(20));
            assertThat(endpoint.bucket("user-1", "gpt-4").pausedUntil()).isEqualTo(until);
        });
    }

    @Test
    void readsAChildWithItsOwnLimitsAndItsCascade() {
        run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            limiter.acquire("key-1", "gpt-4", Map.of("rpm", 2L)).close();
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);

            BucketDescriptor key = endpoint.bucket("key-1", "gpt-4");
            assertThat(key.name()).isEqualTo("Acme production key");
            assertThat(key.parent()).isEqualTo("org-1");
            assertThat(key.source()).isEqualTo("ENTITY_RESOURCE");
            assertThat(key.cascadesTo()).isEqualTo("org-1");
            assertThat(key.limits()).extracting(LimitStateDescriptor::name, LimitStateDescriptor::capacity,
                    LimitStateDescriptor::available).containsExactly(
                    tuple("rpm", 5L, 3L),
                    tuple("tpm", 500L, 500L));

            BucketDescriptor org = endpoint.bucket("org-1", "gpt-4");
            assertThat(org.name()).isEqualTo("Acme");
            assertThat(org.source()).isEqualTo("RESOURCE");
            assertThat(org.limits().get(0).available()).isEqualTo(8);    // the cascade debited the parent too
        });
    }

    @Test
    void readsTheDisabledMode() {
        run(context -> assertThat(context.getBean(RateLimitsEndpoint.class).bucket("vip", "gpt-4").disabled())
                .isEqualTo(DisabledMode.BYPASS));
    }

    @Test
    void readsTheScheduleWindowInForce() {
        run(context -> {
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            LimitStateDescriptor night = endpoint.bucket("user-1", "batch").limits().get(0);
            assertThat(night.capacity()).isEqualTo(200);
            assertThat(night.refillAmount()).isEqualTo(200);
            assertThat(night.activeWindow()).isEqualTo("* 0-5 * * *");

            clock.advance(Duration.ofHours(6));
            LimitStateDescriptor day = endpoint.bucket("user-1", "batch").limits().get(0);
            assertThat(day.capacity()).isEqualTo(100);
            assertThat(day.activeWindow()).isNull();
        });
    }

    @Test
    void readsAResourceWhoseNameHasASlash() {
        run(context -> {
            BucketDescriptor bucket = context.getBean(RateLimitsEndpoint.class).bucket("user-1", "openai", "gpt-4");
            assertThat(bucket.resource()).isEqualTo("openai/gpt-4");
            assertThat(bucket.limits()).singleElement().extracting(LimitStateDescriptor::capacity).isEqualTo(3L);
        });
    }

    @Test
    void readsNothingForMalformedIdsOrWhenNoLimitsApply() {
        run(context -> {
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            assertThat(endpoint.bucket("user 1", "gpt-4")).isNull();
            assertThat(endpoint.bucket("user-1", "9lives")).isNull();
            assertThat(endpoint.bucket("user-1")).isNull();
            assertThat(endpoint.bucket("user-1", "unknown")).isNull();  // no system limits are declared
        });
    }

    @Test
    void readingWritesNothing() {
        run(context -> {
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            endpoint.bucket("user-1", "gpt-4");
            clock.advance(Duration.ofSeconds(30));
            assertThat(endpoint.bucket("user-1", "gpt-4").limits().get(0).consumed()).isZero();
        });
    }

    @Test
    void resetPutsTheBucketBackToFull() {
        run(context -> {
            RateLimiter limiter = context.getBean(RateLimiter.class);
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            for (int i = 0; i < 10; i++) {
                limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).close();
            }
            limiter.acquire("user-2", "gpt-4", Map.of("rpm", 1L)).close();
            assertThat(endpoint.bucket("user-1", "gpt-4").limits().get(0).available()).isZero();
            assertThat(limiter.checkAvailability("user-1", "gpt-4", Map.of("rpm", 1L)).allowed()).isFalse();

            endpoint.reset("user-1", "gpt-4");

            LimitStateDescriptor rpm = endpoint.bucket("user-1", "gpt-4").limits().get(0);
            assertThat(rpm.available()).isEqualTo(10);
            assertThat(rpm.consumed()).isZero();
            assertThat(limiter.checkAvailability("user-1", "gpt-4", Map.of("rpm", 1L)).allowed()).isTrue();
            assertThat(endpoint.bucket("user-2", "gpt-4").limits().get(0).available()).isEqualTo(9);
            assertThat(limiter.admin().getResourceDefaults("gpt-4")).hasSize(3);   // limits are untouched
        });
    }

    @Test
    void resetOfABucketThatDoesNotExistDoesNothing() {
        run(context -> {
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            endpoint.reset("nobody", "gpt-4");
            assertThat(endpoint.bucket("nobody", "gpt-4").limits().get(0).available()).isEqualTo(10);
        });
    }

    @Test
    void resetRefusesMalformedIds() {
        run(context -> {
            WebEndpointResponse<Map<String, Object>> answer = context.getBean(RateLimitsEndpoint.class)
                    .reset("user 1", "gpt-4");
            assertThat(answer.getStatus()).isEqualTo(400);
            assertThat(answer.getBody()).hasEntrySatisfying("error", error -> assertThat(error.toString())
                    .contains("entity"));
        });
    }

    @Test
    void resetIsOffUnlessEnabled() {
        runner.withPropertyValues("zae.limiter.endpoint-writes.resets=false").run(context ->
                assertThat(context.getBean(RateLimitsEndpoint.class).reset("user-1", "gpt-4").getStatus())
                        .isEqualTo(403));
    }
}
