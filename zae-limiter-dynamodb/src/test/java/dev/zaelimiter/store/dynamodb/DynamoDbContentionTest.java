package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Contention alone never fails a call (issue 23, item 13): a write that keeps losing races to other processes tries
 * again, backing off, within a time budget rather than a fixed number of attempts. The races are made exactly: before
 * each of the call's whole rewrites, another process writes the bucket, so that the version the rewrite is
 * conditioned on has moved.
 */
class DynamoDbContentionTest {

    private static final int RACES = 24;

    private final MutableClock clock = MutableClock.start();
    private final AtomicInteger races = new AtomicInteger();
    private DynamoDbStore other;
    private RateLimiter otherLimiter;
    private DynamoDbStore store;

    @AfterEach
    void close() {
        store.close();
        other.close();
    }

    private RateLimiter processes() {
        ExecutionInterceptor raced = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutItemRequest && races.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    otherLimiter.acquire("tenant", "api", Map.of("rpm", 1L)).close();
                }
            }
        };
        other = DynamoDbTestStores.newStore(getClass(), clock);
        otherLimiter = RateLimiter.builder().store(other).clock(clock).build();
        store = DynamoDbTestStores.builder(getClass(), clock).namespace(other.namespace())
                .client(Dynalite.get().client(raced)).build();
        return RateLimiter.builder().store(store).clock(clock).build();
    }

    @Test
    void aCallThatLosesManyRacesInARowIsStillDecided() {
        RateLimiter limiter = processes();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1_000)));
        otherLimiter.acquire("tenant", "api", Map.of("rpm", 1L)).close();
        races.set(RACES);
        Lease lease = limiter.acquire(AcquireRequest.of("tenant", "api").consume("rpm", 1)
                .limits(List.of(Limit.perMinute("rpm", 500))));          // an override: every write is a rewrite
        assertThat(lease.degraded()).isFalse();
        assertThat(races).as("every race was lost").hasValue(0);
        assertThat(otherLimiter.available("tenant", "api")).containsEntry("rpm", 1_000L - 1 - RACES - 1);
    }
}
