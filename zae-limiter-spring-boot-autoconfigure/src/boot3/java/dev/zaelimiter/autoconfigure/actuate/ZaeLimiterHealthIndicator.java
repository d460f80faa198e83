package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Whether the limiter's store answers: UP with the store's kind, DOWN with the error when the store is unavailable
 * or fails otherwise; the details also show the circuit breaker (see {@link StoreHealth}). Contributes as
 * {@code zaeLimiter}.
 */
public class ZaeLimiterHealthIndicator extends AbstractHealthIndicator {

    private final RateLimiter limiter;

    public ZaeLimiterHealthIndicator(RateLimiter limiter) {
        super("zae-limiter store health check failed");
        this.limiter = limiter;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        StoreHealth health = StoreHealth.of(limiter);
        builder.withDetails(health.details());
        if (health.failure() == null) {
            builder.up();
        } else {
            builder.down(health.failure());
        }
    }
}
