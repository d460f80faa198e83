package dev.zaelimiter;

import java.time.Duration;
import java.util.List;

/**
 * A refused {@link Attempt}: the exception {@link RateLimiter#acquire} would have raised, built when first asked
 * for (a refusal decided in place explains itself only when someone reads it).
 */
final class Refusal implements Attempt {

    /** Builds the exception of a refusal that was not explained when decided. */
    interface Explanation {
        RateLimitExceededException explain();
    }

    private final Explanation explanation;
    private RateLimitExceededException exception;

    private Refusal(Explanation explanation) {
        this.explanation = explanation;
    }

    /** A refusal already explained. */
    static Refusal of(RateLimitExceededException exception) {
        Refusal refusal = new Refusal(null);
        refusal.exception = exception;
        return refusal;
    }

    /** A refusal explained by {@code explanation} when first read. */
    static Refusal explainedBy(Explanation explanation) {
        return new Refusal(explanation);
    }

    /** The refusal as {@link RateLimiter#acquire} raises it. */
    synchronized RateLimitExceededException exception() {
        if (exception == null) {
            exception = explanation.explain();
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
    public RateLimitExceededException refusal() {
        return exception();
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
