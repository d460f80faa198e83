package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.CircuitBreaker;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.LimiterStore;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.core.DecoratingProxy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether the limiter's store answers: one cheap read (the system configuration level), made whatever the circuit
 * breaker's state. UP with the store's kind, DOWN with the error when the store is unavailable or fails otherwise.
 * The details also show the circuit breaker: {@code state}, {@code consecutiveFailures} and, while open,
 * {@code retryAt}. Contributes as {@code zaeLimiter}.
 */
public class ZaeLimiterHealthIndicator extends AbstractHealthIndicator {

    private final RateLimiter limiter;

    public ZaeLimiterHealthIndicator(RateLimiter limiter) {
        super("zae-limiter store health check failed");
        this.limiter = limiter;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("store", kind(limiter.store()));
        CircuitBreaker breaker = limiter.circuitBreaker();
        if (breaker.enabled()) {
            Map<String, Object> circuit = new LinkedHashMap<>();
            circuit.put("state", breaker.state().name());
            circuit.put("consecutiveFailures", breaker.consecutiveFailures());
            breaker.retryAt().ifPresent(at -> circuit.put("retryAt", at.toString()));
            builder.withDetail("circuitBreaker", circuit);
        }
        try {
            limiter.probe();
            builder.up();
        } catch (StoreUnavailableException e) {
            builder.down(e);
        }
    }

    /** The store's class, seen through a decorating store such as the metering one. */
    static String kind(LimiterStore store) {
        Class<?> type = store instanceof DecoratingProxy proxy ? proxy.getDecoratedClass() : store.getClass();
        return type.getSimpleName();
    }
}
