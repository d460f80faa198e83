package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.BucketLife;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every bucket key expires, never before it would read as a new bucket; a debt keeps it as long as it owes. */
class RedisExpiryTest {

    private static final long HOUR = Duration.ofHours(1).toMillis();

    private final MutableClock clock = MutableClock.start();
    private RedisStore store;
    private RateLimiter limiter;

    @BeforeEach
    void setUp() {
        store = RedisTestStores.newStore(clock);
        limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO).build();
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    @Test
    void aBucketLivesPastItsHorizonAndNoLonger() {
        List<Limit> limits = List.of(Limit.perMinute("rpm", 100));
        limiter.admin().setResourceDefaults("api", limits);
        limiter.acquire("user-1", "api", Map.of("rpm", 100L)).close();
        long horizon = BucketLife.idleHorizon(limits, clock.millis());
        assertThat(ttl("user-1", "api")).isGreaterThan(horizon).isLessThanOrEqualTo(horizon + HOUR);
    }

    @Test
    void aDebtMovesTheExpiryPastTheInstantItIsPaidBack() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perHour("tokens", 10).soft()));
        limiter.acquire("user-1", "api", Map.of("tokens", 10L)).close();
        long before = ttl("user-1", "api");
        clock.advance(Duration.ofMinutes(1));
        limiter.acquire("user-1", "api", Map.of("tokens", 1000L)).close();
        long owedFor = Duration.ofHours(100).toMillis();            // 1,000 more than capacity at 10 an hour
        assertThat(before).isLessThan(owedFor);
        assertThat(ttl("user-1", "api")).isGreaterThan(owedFor);

        clock.advance(Duration.ofHours(200));                       // paid back: the next write shortens it again
        limiter.acquire("user-1", "api", Map.of("tokens", 1L)).close();
        assertThat(ttl("user-1", "api")).isLessThan(owedFor);
    }

    @Test
    void aDebtOnAScheduledLimitKeepsTheKeyUntilPaidBackAtTheSlowestRate() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perHour("tokens", 10).soft()
                .withSchedule(List.of(dev.zaelimiter.ScheduleEntry.scaled("* 9-17 * * *", 2.0)))));
        limiter.acquire("user-1", "api", Map.of("tokens", 1000L)).close();
        long toLargestCapacityAtTenAnHour = Duration.ofHours(101).toMillis();     // from -990 to 20
        assertThat(ttl("user-1", "api")).isGreaterThan(toLargestCapacityAtTenAnHour)
                .isLessThan(toLargestCapacityAtTenAnHour + 3 * HOUR);
    }

    @Test
    void aScheduledLimitNotFullExpires() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)
                .withSchedule(List.of(dev.zaelimiter.ScheduleEntry.scaled("* 9-17 * * *", 0.5)))));
        limiter.acquire("user-1", "api", Map.of("rpm", 10L)).close();
        assertThat(ttl("user-1", "api")).isPositive().isLessThan(3 * HOUR);
    }

    @Test
    void aReadUnderASlowerRefillSetSinceKeepsTheDebtPastItsPayback() {
        owe1000AtTenASecondThenTenAnHour(Limit.perHour("tokens", 10).soft());
        assertThat(limiter.available("user-1", "api")).containsEntry("tokens", -1000L);
        assertThat(ttl("user-1", "api")).isGreaterThan(Duration.ofHours(100).toMillis());
    }

    @Test
    void aRefusalUnderASlowerRefillSetSinceKeepsTheDebtPastItsPayback() {
        owe1000AtTenASecondThenTenAnHour(Limit.perHour("tokens", 10));
        clock.advance(Duration.ofSeconds(2));                       // past what a local refusal may use
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("tokens", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(ttl("user-1", "api")).isGreaterThan(Duration.ofHours(100).toMillis());
    }

    @Test
    void anotherProcessThatReadsUnderASlowerRefillKeepsTheDebtPastItsPayback() {
        owe1000AtTenASecondThenTenAnHour(Limit.perHour("tokens", 10).soft());
        try (RedisStore other = RedisTestStores.builder(clock).prefix(store.prefix()).build()) {
            RateLimiter second = RateLimiter.builder().store(other).clock(clock).usageFlushInterval(Duration.ZERO)
                    .build();
            assertThat(second.available("user-1", "api")).containsEntry("tokens", -1000L);
        }
        assertThat(ttl("user-1", "api")).isGreaterThan(Duration.ofHours(100).toMillis());
    }

    private void owe1000AtTenASecondThenTenAnHour(Limit slower) {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("tokens", 10).soft()));
        limiter.acquire("user-1", "api", Map.of("tokens", 1_010L)).close();
        assertThat(ttl("user-1", "api")).as("paid back in 100 s").isLessThan(3 * HOUR);
        limiter.admin().setResourceDefaults("api", List.of(slower));
    }

    @Test
    void aOneLimitBucketTakesUnderTwoHundredBytes() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        Long bytes = RedisTestStores.connection().sync().memoryUsage(store.prefix() + "#E#user-1#B#api");
        assertThat(bytes).isLessThan(200);
    }

    private long ttl(String entity, String resource) {
        RedisCommands<String, String> redis = RedisTestStores.connection().sync();
        return redis.pttl(store.prefix() + "#E#" + entity + "#B#" + resource);
    }
}
