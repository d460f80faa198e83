package dev.zaelimiter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;

/**
 * A refused {@link Attempt}: the exception {@link RateLimiter#acquire} would have raised, built when first asked
 * for; and for a refusal decided in place, its statuses built from what the decision saw when someone first reads
 * them.
 */
final class Refusal implements Attempt {

    /**
     * Builds the statuses of a refusal from what its decision saw.
     *
     * @param <S> the type of what the decision saw
     */
    interface Explanation<S> {
        List<LimitStatus> statuses(S seen);
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

    /**
     * The exception, or what the decision saw, which {@link #explanation} explains. Final, as the explanation is:
     * safe to hand to another thread.
     */
    private final Object reason;
    private final Explanation<Object> explanation;
    /** The exception made here, set once: the first published wins, so that every reader gets the same. */
    private RateLimitExceededException explained;

    @SuppressWarnings("unchecked")
    private Refusal(Object reason, Explanation<?> explanation) {
        this.reason = reason;
        this.explanation = (Explanation<Object>) explanation;
    }

    /** A refusal already explained. */
    static Refusal of(RateLimitExceededException exception) {
        return new Refusal(exception, null);
    }

    /**
     * A refusal whose exception is made when first asked for; {@code explanation} builds its statuses from
     * {@code seen}.
     */
    static <S> Refusal explainedBy(Explanation<S> explanation, S seen) {
        return new Refusal(seen, explanation);
    }

    /** The refusal as {@link RateLimiter#acquire} raises it. */
    RateLimitExceededException exception() {
        if (explanation == null) {
            return (RateLimitExceededException) reason;
        }
        RateLimitExceededException known = (RateLimitExceededException) EXPLAINED.getAcquire(this);
        if (known != null) {
            return known;
        }
        RateLimitExceededException made = new RateLimitExceededException(explanation, reason);
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
