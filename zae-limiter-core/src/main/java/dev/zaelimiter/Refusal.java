package dev.zaelimiter;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * A refused {@link Attempt}: the exception {@link RateLimiter#acquire} would have raised, built when first asked
 * for (a refusal decided in place explains itself only when someone reads it).
 */
final class Refusal implements Attempt {

    private final Supplier<RateLimitExceededException> explain;
    private RateLimitExceededException exception;

    private Refusal(Supplier<RateLimitExceededException> explain) {
        this.explain = explain;
    }

    /** A refusal already explained. */
    static Refusal of(RateLimitExceededException exception) {
        Refusal refusal = new Refusal(null);
        refusal.exception = exception;
        return refusal;
    }

    /** A refusal explained by {@code explain} when first read. */
    static Refusal explainedBy(Supplier<RateLimitExceededException> explain) {
        return new Refusal(explain);
    }

    /** The refusal as {@link RateLimiter#acquire} raises it. */
    synchronized RateLimitExceededException exception() {
        if (exception == null) {
            exception = explain.get();
        }
        return exception;
    }

    @Override
    public boolean admitted() {
        return false;
    }

    @Override
    public Lease lease() {
        throw exception();
    }

    @Override
    public Duration retryAfter() {
        return exception().retryAfter();
    }

    @Override
    public List<LimitStatus> statuses() {
        return exception().statuses();
    }

    @Override
    public String toString() {
        return "Refusal[" + exception().getMessage() + "]";
    }
}
