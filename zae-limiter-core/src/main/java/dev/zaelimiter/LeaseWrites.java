package dev.zaelimiter;

import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.LimiterStore;

import java.time.Clock;
import java.util.List;

/**
 * What a lease needs after its call was admitted: its corrections and renewals written through the circuit breaker
 * on the limiter's clock, the unavailability policy for when they fail, and a way to wake this process's waiters
 * when it gives capacity back, and the usage recorder that counts what corrections consume ({@code null}: none).
 */
record LeaseWrites(LimiterStore store, Clock clock, CircuitBreaker breaker, UnavailablePolicy policy,
        WaitQueues waiting, UsageRecorder usage) {

    /** These writes, under {@code policy} instead (a call's own). */
    LeaseWrites with(UnavailablePolicy policy) {
        return new LeaseWrites(store, clock, breaker, policy, waiting, usage);
    }

    void apply(List<BucketDebit> changes) {
        long now = clock.millis();
        breaker.call(() -> {
            store.apply(changes, now);
            return null;
        });
        if (usage != null) {
            usage.adjusted(changes, now);
        }
    }

    boolean renew(List<BucketDebit> holding) {
        return breaker.call(() -> store.renew(holding, clock.millis()));
    }

    void released(BucketKey key) {
        waiting.released(key);
    }
}
