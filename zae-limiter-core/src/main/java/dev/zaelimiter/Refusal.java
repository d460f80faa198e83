package dev.zaelimiter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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

    private static final VarHandle EXPLAINED;

    static {
        try {
            EXPLAINED = MethodHandles.lookup().findVarHandle(Refusal.class, "explained",
                    RateLimitExceededException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The exception, or the {@link Explanation} that builds it. Final: safe to hand to another thread. */
    private final Object reason;
    /** What {@link #reason} explained, set once: the first published wins, so that every reader gets the same. */
    private RateLimitExceededException explained;

    private Refusal(Object reason) {
        this.reason = reason;
    }

    /** A refusal already explained. */
    static Refusal of(RateLimitExceededException exception) {
        return new Refusal(exception);
    }

    /** A refusal explained by {@code explanation} when first read. */
    static Refusal explainedBy(Explanation explanation) {
        return new Refusal(explanation);
    }

    /** The refusal as {@link RateLimiter#acquire} raises it. */
    RateLimitExceededException exception() {
        if (reason instanceof RateLimitExceededException given) {
            return given;
        }
        RateLimitExceededException known = (RateLimitExceededException) EXPLAINED.getAcquire(this);
        if (known != null) {
            return known;
        }
        RateLimitExceededException made = ((Explanation) reason).explain();
        RateLimitExceededException raced = (RateLimitExceededException) EXPLAINED.compareAndExchange(this, null, made);
        return raced == null ? made : raced;
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
