package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.CircuitBreaker;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.autoconfigure.StoreSetup;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.TableNotFoundException;
import org.springframework.core.DecoratingProxy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link ZaeLimiterHealthIndicator} reports on either Spring Boot line: whether the limiter's store answers one
 * cheap read (the system configuration level), made whatever the circuit breaker's state, with the store's kind and
 * the circuit breaker's {@code state}, {@code consecutiveFailures} and, while open, {@code retryAt}; while the store's
 * set-up is not done (the store could not be reached at startup), {@code setup} with what is pending (see
 * {@link StoreSetup#state()}); and when DynamoDB answered that the table does not exist, {@code missingTable}.
 *
 * @param details the health details, in order
 * @param failure why the store is down, or {@code null} when it is up
 */
record StoreHealth(Map<String, Object> details, StoreUnavailableException failure) {

    static StoreHealth of(RateLimiter limiter) {
        return of(limiter, null);
    }

    static StoreHealth of(RateLimiter limiter, StoreSetup setup) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("store", kind(limiter.store()));
        CircuitBreaker breaker = limiter.circuitBreaker();
        if (breaker.enabled()) {
            Map<String, Object> circuit = new LinkedHashMap<>();
            circuit.put("state", breaker.state().name());
            circuit.put("consecutiveFailures", breaker.consecutiveFailures());
            breaker.retryAt().ifPresent(at -> circuit.put("retryAt", at.toString()));
            details.put("circuitBreaker", circuit);
        }
        if (setup != null && !setup.pending().isEmpty()) {
            details.put("setup", setup.state());
        }
        try {
            limiter.probe();
            return new StoreHealth(details, null);
        } catch (StoreUnavailableException e) {
            if (e instanceof TableNotFoundException missing) {
                details.put("missingTable", missing.table());
            }
            return new StoreHealth(details, e);
        }
    }

    /** The store's class, seen through a decorating store such as the metering one. */
    static String kind(LimiterStore store) {
        Class<?> type = store instanceof DecoratingProxy proxy ? proxy.getDecoratedClass() : store.getClass();
        return type.getSimpleName();
    }
}
