package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.StoreSetup;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Whether the limiter's store answers: UP with the store's kind, DOWN with the error when the store is unavailable
 * or fails otherwise; the details also show the circuit breaker (see {@link StoreHealth}). Contributes as
 * {@code zaeLimiter}.
 */
public class ZaeLimiterHealthIndicator extends AbstractHealthIndicator {

    private final RateLimiter limiter;
    private final StoreSetup setup;

    public ZaeLimiterHealthIndicator(RateLimiter limiter) {
        this(limiter, null);
    }

    /** Also shows what the store's set-up still has to do, when {@code setup} (may be {@code null}) is pending. */
    public ZaeLimiterHealthIndicator(RateLimiter limiter, StoreSetup setup) {
        super("zae-limiter store health check failed");
        this.limiter = limiter;
        this.setup = setup;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        StoreHealth health = StoreHealth.of(limiter, setup);
        builder.withDetails(health.details());
        if (health.failure() == null) {
            builder.up();
        } else {
            builder.down(health.failure());
        }
    }
}
