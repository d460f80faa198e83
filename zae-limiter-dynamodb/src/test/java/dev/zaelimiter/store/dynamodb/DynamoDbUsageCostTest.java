package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What usage history costs in requests: nothing per call, one conditional update per period per flush. */
class DynamoDbUsageCostTest {

    private final MutableClock clock = MutableClock.start();
    private final RequestCounter counter = new RequestCounter();

    @Test
    void callsCostWhatTheyCostWithoutHistoryAndAFlushWritesEachPeriodOfEachBucketOnce() {
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock)
                .client(Dynalite.get().client(counter)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 1000),
                Limit.perMinute("tpm", 100_000)));
        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L, "tpm", 100L));
        limiter.acquire("user-2", "gpt-4", Map.of("rpm", 1L, "tpm", 100L));
        counter.reset();
        for (int i = 0; i < 50; i++) {
            clock.advance(Duration.ofMillis(100));
            limiter.acquire("user-" + (1 + i % 2), "gpt-4", Map.of("rpm", 1L, "tpm", 100L)).close();
        }
        assertThat(counter.snapshot()).as("the admitted fast path stays one request").isEqualTo(
                Map.of("UpdateItem", 50L));

        counter.reset();
        limiter.flushUsage();
        assertThat(counter.snapshot()).as("an hour and a day item for each of the two buckets")
                .isEqualTo(Map.of("UpdateItem", 4L));
        counter.reset();
        limiter.flushUsage();
        assertThat(counter.total()).as("nothing new, nothing sent").isZero();

        assertThat(limiter.admin().usage("user-1", "gpt-4", "tpm", UsageGranularity.DAY,
                        Instant.parse("2026-03-01T00:00:00Z"), Instant.parse("2026-03-02T00:00:00Z")))
                .singleElement().extracting(Usage::consumed, Usage::admitted).containsExactly(2600L, 26L);
    }

    @Test
    void aRefusalKnownLocallyStillCostsNoRequest() {
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock)
                .client(Dynalite.get().client(counter)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
        counter.reset();
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                    .isInstanceOf(RateLimitExceededException.class);
        }
        assertThat(counter.total()).isZero();
        limiter.flushUsage();
        assertThat(limiter.admin().usage("user-1", "api", "rpm", UsageGranularity.HOUR,
                        Instant.parse("2026-03-01T00:00:00Z"), Instant.parse("2026-03-02T00:00:00Z")))
                .singleElement().extracting(Usage::admitted, Usage::refused).containsExactly(1L, 6L);
    }
}
