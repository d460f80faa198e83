package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Deleting an entity makes this process forget its buckets, as deleting one bucket does. */
class DynamoDbDeleteEntityTest {

    private final MutableClock clock = MutableClock.start();
    private RateLimiter limiter;

    @BeforeEach
    void setUp() {
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock).build();
        limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 2)));
    }

    @Test
    void aDeletedEntitysBucketIsNotRefusedFromWhatThisProcessKnewOfIt() {
        limiter.admin().createEntity("user-1");
        limiter.acquire("user-1", "api", Map.of("rpm", 2L)).close();
        assertThat(limiter.tryAcquire("user-1", "api", Map.of("rpm", 1L)).admitted()).isFalse();
        limiter.admin().deleteEntity("user-1");
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 2L);
        assertThat(limiter.tryAcquire("user-1", "api", Map.of("rpm", 1L)).admitted())
                .as("the bucket is new, as in the in-memory store").isTrue();
    }
}
