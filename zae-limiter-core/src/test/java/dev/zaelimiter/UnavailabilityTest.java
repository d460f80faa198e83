package dev.zaelimiter;

import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LevelConfig;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The unavailability policy reacts to store errors, and to nothing else. */
class UnavailabilityTest {

    /** An in-memory store whose bucket and config operations fail with a chosen exception while it is set. */
    static final class FlakyStore implements LimiterStore {
        final InMemoryStore delegate = new InMemoryStore();
        RuntimeException failure;

        private void maybeFail() {
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public ConfigSnapshot loadConfig(String entityId, String resource) {
            maybeFail();
            return delegate.loadConfig(entityId, resource);
        }

        @Override
        public LevelConfig getLevel(ConfigScope scope) {
            return delegate.getLevel(scope);
        }

        @Override
        public void putLimits(ConfigScope scope, List<Limit> limits) {
            delegate.putLimits(scope, limits);
        }

        @Override
        public void putDisabled(ConfigScope scope, DisabledMode mode) {
            delegate.putDisabled(scope, mode);
        }

        @Override
        public void putCascade(ConfigScope scope, Boolean cascade) {
            delegate.putCascade(scope, cascade);
        }

        @Override
        public void putPause(ConfigScope scope, Long until) {
            delegate.putPause(scope, until);
        }

        @Override
        public void createEntity(Entity entity) {
            delegate.createEntity(entity);
        }

        @Override
        public Optional<Entity> getEntity(String entityId) {
            return delegate.getEntity(entityId);
        }

        @Override
        public void updateEntity(Entity entity) {
            delegate.updateEntity(entity);
        }

        @Override
        public boolean deleteEntity(String entityId) {
            return delegate.deleteEntity(entityId);
        }

        @Override
        public List<Entity> children(String parentId) {
            return delegate.children(parentId);
        }

        @Override
        public AcquireResult tryAcquire(List<BucketDebit> debits, long now) {
            maybeFail();
            return delegate.tryAcquire(debits, now);
        }

        @Override
        public void apply(List<BucketDebit> debits, long now) {
            maybeFail();
            delegate.apply(debits, now);
        }

        @Override
        public void deleteBucket(dev.zaelimiter.store.BucketKey key) {
            delegate.deleteBucket(key);
        }

        @Override
        public List<BucketSnapshot> peek(List<BucketDebit> debits, long now) {
            maybeFail();
            return delegate.peek(debits, now);
        }
    }

    private final MutableClock clock = MutableClock.start();
    private final FlakyStore store = new FlakyStore();

    private RateLimiter limiter(Unavailable policy) {
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).onUnavailable(policy).build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        return limiter;
    }

    private static StoreUnavailableException down() {
        return new StoreUnavailableException("store down", new RuntimeException("connection refused"));
    }

    @Test
    void blockRaisesTheStoreError() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        store.failure = down();
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> limiter.checkAvailability("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void allowAdmitsWithALeaseThatRecordsNothing() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        store.failure = down();
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        assertThat(lease.degraded()).isTrue();
        assertThat(lease.statuses()).isEmpty();
        lease.adjust("rpm", 5);
        lease.rollback();
        assertThatThrownBy(lease::rollback).isInstanceOf(LeaseClosedException.class);
        assertThat(limiter.checkAvailability("user-1", "api", Map.of("rpm", 1L)).allowed()).isTrue();

        store.failure = null;
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 1L);
    }

    @Test
    void allowSwallowsAFailedAdjustmentOfARealLease() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        store.failure = down();
        lease.rollback();
        store.failure = null;
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 0L);
    }

    @Test
    void blockRaisesAFailedAdjustment() {
        RateLimiter limiter = limiter(Unavailable.BLOCK);
        Lease lease = limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        store.failure = down();
        assertThatThrownBy(() -> lease.adjust("rpm", 1)).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void programmingErrorsAndRateLimitsAreNeverSwallowed() {
        RateLimiter limiter = limiter(Unavailable.ALLOW);
        store.failure = new IllegalStateException("bug in the store");
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(IllegalStateException.class);
        store.failure = null;
        limiter.acquire("user-1", "api", Map.of("rpm", 1L));
        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThatThrownBy(() -> limiter.acquire("user#1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(ValidationException.class);
    }
}
