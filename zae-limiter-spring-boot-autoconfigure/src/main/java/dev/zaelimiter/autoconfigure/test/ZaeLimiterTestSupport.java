package dev.zaelimiter.autoconfigure.test;

import org.springframework.lang.Nullable;

import java.time.Duration;
import java.time.Instant;

/**
 * What a test of an application's limits drives, injected with {@code @Autowired} in a test annotated
 * {@link AutoConfigureZaeLimiterTest}: the limiter's clock and the buckets. {@link #reset()} runs after every test
 * method by itself.
 */
public final class ZaeLimiterTestSupport {

    @Nullable
    private final ZaeLimiterTestClock clock;
    @Nullable
    private final ZaeLimiterTestStore store;

    /**
     * @param clock the limiter's clock, or {@code null} when the application brings its own {@code Clock} bean
     * @param store the test store, or {@code null} when the application brings its own {@code LimiterStore} bean
     */
    public ZaeLimiterTestSupport(@Nullable ZaeLimiterTestClock clock, @Nullable ZaeLimiterTestStore store) {
        this.clock = clock;
        this.store = store;
    }

    /** The limiter's clock. */
    public ZaeLimiterTestClock clock() {
        if (clock == null) {
            throw new IllegalStateException("the application defines its own Clock bean, so the limiter uses that one;"
                    + " declare a ZaeLimiterTestClock bean with @Primary in a @TestConfiguration to drive it");
        }
        return clock;
    }

    /** Moves the limiter's clock forward: buckets refill, quotas reset and schedule windows change as they would. */
    public void advance(Duration duration) {
        clock().advance(duration);
    }

    /** Puts the limiter's clock at {@code instant}. */
    public void setTime(Instant instant) {
        clock().set(instant);
    }

    /** Puts every bucket back to full and ends every pause; declarations, entities and limits stay. */
    public void resetBuckets() {
        if (store == null) {
            throw new IllegalStateException("the application defines its own LimiterStore bean, so there are no test"
                    + " buckets to reset; use RateLimiterAdmin.resetBucket(entity, resource)");
        }
        store.reset();
    }

    /** {@link #resetBuckets()} and the clock back where it started; runs after every test method. */
    public void reset() {
        if (store != null) {
            store.reset();
        }
        if (clock != null) {
            clock.reset();
        }
    }
}
