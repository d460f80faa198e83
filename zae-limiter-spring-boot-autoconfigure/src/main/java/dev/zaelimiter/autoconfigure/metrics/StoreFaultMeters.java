package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.CircuitBreaker;
import dev.zaelimiter.RateLimiter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Locale;

/**
 * Meters of how the limiter copes with a failing store, registered when made:
 * <ul>
 *   <li>{@value #CIRCUIT}, a gauge per circuit breaker state (tag {@code state}: {@code closed}, {@code open},
 *       {@code half_open}), 1 for the state the breaker is in and 0 for the others;</li>
 *   <li>{@value #CIRCUIT_SKIPPED}, a counter of the store calls not made because the circuit was open, each of them
 *       a decision that applied the unavailability policy at once;</li>
 *   <li>{@value #TIMEOUTS}, a counter of store requests (DynamoDB, Redis) that ran out of their deadline
 *       ({@code zae.limiter.store-timeout}), registered for the DynamoDB and Redis stores (see
 *       {@link ZaeLimiterMetricsAutoConfiguration}).</li>
 * </ul>
 */
public final class StoreFaultMeters {

    /** The circuit breaker state gauge. */
    public static final String CIRCUIT = "zae.limiter.store.circuit";

    /** The counter of store calls the open circuit skipped. */
    public static final String CIRCUIT_SKIPPED = "zae.limiter.store.circuit.skipped";

    /** The counter of DynamoDB requests that timed out. */
    public static final String TIMEOUTS = "zae.limiter.store.timeouts";

    /** Registers the circuit breaker meters of {@code limiter} in {@code registry}. */
    public StoreFaultMeters(MeterRegistry registry, RateLimiter limiter) {
        CircuitBreaker breaker = limiter.circuitBreaker();
        for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
            Gauge.builder(CIRCUIT, breaker, b -> b.state() == state ? 1 : 0)
                    .description("Whether the circuit breaker around the rate limiter's store is in this state")
                    .tag("state", state.name().toLowerCase(Locale.ROOT))
                    .strongReference(true)
                    .register(registry);
        }
        FunctionCounter.builder(CIRCUIT_SKIPPED, breaker, CircuitBreaker::skippedCalls)
                .description("Store calls not made because the circuit breaker was open")
                .register(registry);
    }

    /** Registers {@value #TIMEOUTS}, counting what {@code timeouts} reads. */
    static <T> void timeouts(MeterRegistry registry, T store, java.util.function.ToDoubleFunction<T> timeouts) {
        FunctionCounter.builder(TIMEOUTS, store, timeouts)
                .description("Store requests that ran out of their deadline (a timed-out write may still land)")
                .register(registry);
    }
}
