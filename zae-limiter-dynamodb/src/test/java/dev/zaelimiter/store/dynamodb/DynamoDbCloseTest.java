package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A closed DynamoDB store (issue 23, items 10 and 14): every later call, plain or cascading, and every correction of
 * a lease taken before, gets a {@link StoreUnavailableException} that the limiter's policy handles; closing lets a
 * write in flight on the store's threads finish instead of interrupting it.
 */
class DynamoDbCloseTest {

    private final MutableClock clock = MutableClock.start();

    private static void configure(RateLimiter limiter) {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
        limiter.admin().createEntity(Entity.of("org"));
        limiter.admin().createEntity(new Entity("user", null, "org", true));
    }

    @Test
    void afterCloseEveryCallAndSettlementIsAnUnavailableStore() {
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), clock);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        configure(limiter);
        Lease plain = limiter.acquire("solo", "api", Map.of("rpm", 1L));
        Lease cascading = limiter.acquire("user", "api", Map.of("rpm", 1L));
        store.close();
        assertThatThrownBy(() -> limiter.acquire("solo", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> limiter.acquire("user", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> plain.adjust("rpm", 2)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(cascading::rollback).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void afterCloseTheAllowPolicyAdmitsUnrecorded() {
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), clock);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).onUnavailable(Unavailable.ALLOW)
                .noCircuitBreaker().build();
        configure(limiter);
        Lease cascading = limiter.acquire("user", "api", Map.of("rpm", 1L));
        store.close();
        assertThat(limiter.acquire("user", "api", Map.of("rpm", 1L)).degraded()).isTrue();
        assertThat(limiter.acquire("solo", "api", Map.of("rpm", 1L)).degraded()).isTrue();
        cascading.adjust("rpm", 3);
        cascading.rollback();
    }

    @Test
    void aCallRacingCloseTakesNoBatchThatNobodyWouldGiveBack() {
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), clock);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("r", 100).withLocalReservations()));
        for (int i = 0; i < 30; i++) {
            limiter.acquire("tenant", "api", Map.of("r", 1L)).close();
        }
        assertThat(Holds.held(store.bucketItemForTest("tenant", "api"), "r")).isPositive();
        store.closeReservationsForTest();                     // close() has given the batches back, the client is up
        assertThat(Holds.held(store.bucketItemForTest("tenant", "api"), "r")).isZero();

        assertThat(limiter.acquire("tenant", "api", Map.of("r", 1L)).degraded()).isFalse();
        assertThat(Holds.held(store.bucketItemForTest("tenant", "api"), "r"))
                .as("a call that slipped in after the sweep holds nothing past close").isZero();
        assertThat(limiter.available("tenant", "api")).containsEntry("r", 69L);
    }

    @Test
    void closeLetsAnIdleReturnInFlightFinish() throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutionInterceptor slowReturn = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest && armed.compareAndSet(true, false)) {
                    writing.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock)
                .client(Dynalite.get().client(slowReturn)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("r", 100).withLocalReservations()));
        for (int i = 0; i < 30; i++) {
            limiter.acquire("tenant", "api", Map.of("r", 1L)).close();
        }
        assertThat(Holds.held(store.bucketItemForTest("tenant", "api"), "r")).isPositive();
        armed.set(true);
        clock.advance(Duration.ofSeconds(1));                 // the pool is idle: the sweep gives its batch back
        assertThat(writing.await(10, TimeUnit.SECONDS)).as("the idle return started").isTrue();
        Thread closer = new Thread(store::close);
        closer.start();
        while (!interrupted.get() && closer.getState() != Thread.State.TIMED_WAITING && closer.isAlive()) {
            Thread.onSpinWait();
        }
        release.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(interrupted).as("the return in flight was interrupted").isFalse();
        DynamoDbStore reader = DynamoDbTestStores.builder(getClass(), clock).namespace(store.namespace()).build();
        assertThat(Holds.held(reader.bucketItemForTest("tenant", "api"), "r")).isZero();
    }
}
