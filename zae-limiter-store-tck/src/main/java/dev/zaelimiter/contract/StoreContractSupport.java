package dev.zaelimiter.contract;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.util.Map;

/**
 * Base of the store contract suite. Each contract class extends this and tests behaviour through
 * {@link RateLimiter} on a fresh store; a store passes the contract when a subclass of each contract class that
 * implements {@link #createStore()} passes.
 */
public abstract class StoreContractSupport {

    protected MutableClock clock;
    protected LimiterStore store;
    protected RateLimiter limiter;
    protected RateLimiterAdmin admin;

    /** A new, empty store. Called once per test. */
    protected abstract LimiterStore createStore();

    @BeforeEach
    void setUpLimiter() {
        clock = MutableClock.start();
        store = createStore();
        limiter = newLimiter(store);
        admin = limiter.admin();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    /**
     * Whether the store books future slots ({@link LimiterStore#tryAcquire(java.util.List, long, long)}); false for
     * one that keeps the interface's default, whose waiters re-check instead.
     */
    protected boolean booksAhead() {
        return true;
    }

    /** Another limiter on the same store and clock, as a second process would have. */
    protected RateLimiter newLimiter(LimiterStore store) {
        return RateLimiter.builder().store(store).clock(clock).build();
    }

    protected static Map<String, Long> consume(String limit, long amount) {
        return Map.of(limit, amount);
    }

    protected static Map<String, Long> consume(String limit1, long amount1, String limit2, long amount2) {
        return Map.of(limit1, amount1, limit2, amount2);
    }
}
