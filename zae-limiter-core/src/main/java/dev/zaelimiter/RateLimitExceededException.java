package dev.zaelimiter;

import java.io.ObjectStreamException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A call was refused because at least one hard limit lacked the tokens. Carries the status of every limit checked,
 * across the entity and, with cascade, its parent.
 */
public class RateLimitExceededException extends RateLimiterException {

    private volatile List<LimitStatus> statuses;
    private volatile Duration retryAfter;
    private final boolean waitsForSlots;
    private volatile String message;
    /**
     * Builds the statuses of a refusal explained when first read from what its decision saw; {@code null} for one
     * explained when made. Final, as what it is given is, so that a thread given the exception without
     * synchronization can still explain it.
     */
    private final transient Refusal.Explanation<Object> explanation;
    private final transient Object seen;
    /**
     * For a refusal of a call asked to book ahead, how far ahead the store would book it at most
     * ({@link Decider#bookingHorizon}); unbounded when the call was not asked to book.
     */
    transient long bookingHorizonMillis = Long.MAX_VALUE;

    public RateLimitExceededException(List<LimitStatus> statuses) {
        this(statuses, false);
    }

    /**
     * @param waitsForSlots whether a concurrency limit refused the call, so that a slot may come back before the
     *                      retry-after (the latest a slot could come back)
     */
    public RateLimitExceededException(List<LimitStatus> statuses, boolean waitsForSlots) {
        this(statuses, waitsForSlots, true);
    }

    /**
     * As {@link #RateLimitExceededException(List, boolean)}; without a stack trace unless {@code stackTrace}. The
     * limiter raises its refusals without one: a refusal is an answer, raised where the caller called, and filling
     * in the trace would cost more than the decision. The message is built when first asked for.
     */
    protected RateLimitExceededException(List<LimitStatus> statuses, boolean waitsForSlots, boolean stackTrace) {
        super(null, stackTrace);
        explained(statuses);
        this.waitsForSlots = waitsForSlots;
        this.explanation = null;
        this.seen = null;
    }

    /**
     * A refusal raised by the limiter (no stack trace, no concurrency limit among its violations) whose statuses
     * {@code explanation} builds from {@code seen}, what its decision saw, when first read: a caller that only
     * catches the refusal does not pay for them.
     */
    @SuppressWarnings("unchecked")
    <S> RateLimitExceededException(Refusal.Explanation<S> explanation, S seen) {
        super(null, false);
        this.explanation = (Refusal.Explanation<Object>) explanation;
        this.seen = seen;
        this.waitsForSlots = false;
    }

    private void explained(List<LimitStatus> given) {
        List<LimitStatus> copy = List.copyOf(given);
        Duration longest = Duration.ZERO;
        for (LimitStatus status : copy) {
            if (status.exceeded() && status.retryAfter().compareTo(longest) > 0) {
                longest = status.retryAfter();
            }
        }
        this.retryAfter = longest;
        this.statuses = copy;
    }

    private List<LimitStatus> explain() {
        List<LimitStatus> known = statuses;
        if (known == null) {
            synchronized (this) {
                known = statuses;
                if (known == null) {
                    explained(explanation.statuses(seen));
                    known = statuses;
                }
            }
        }
        return known;
    }

    /** For refusals that limit statuses do not explain alone, such as a pause. */
    protected RateLimitExceededException(String message, List<LimitStatus> statuses, Duration retryAfter) {
        super(message);
        this.explanation = null;
        this.seen = null;
        this.message = message;
        this.statuses = List.copyOf(statuses);
        this.retryAfter = retryAfter;
        this.waitsForSlots = false;
    }

    /** Serializes the refusal explained: its explanation stays behind. */
    private Object writeReplace() throws ObjectStreamException {
        explain();
        return this;
    }

    @Override
    public String getMessage() {
        String built = message;
        if (built == null) {
            built = message(explain());
            message = built;
        }
        return built;
    }

    private static String message(List<LimitStatus> statuses) {
        StringBuilder sb = new StringBuilder("rate limit exceeded:");
        for (LimitStatus s : statuses) {
            if (s.exceeded()) {
                sb.append(' ').append(s.entityId()).append('/').append(s.resource()).append('/').append(s.limitName())
                        .append(" (requested ").append(s.requested()).append(", available ").append(s.available())
                        .append(", retry after ").append(s.retryAfter().toMillis()).append(" ms)");
            }
        }
        return sb.toString();
    }

    /** Every limit checked, in the order they were evaluated (the entity first, then its parent). */
    public List<LimitStatus> statuses() {
        return explain();
    }

    /** The limits that refused the call. */
    public List<LimitStatus> violations() {
        return explain().stream().filter(LimitStatus::exceeded).toList();
    }

    /** The limits that would have admitted the call, soft ones included. */
    public List<LimitStatus> passed() {
        return explain().stream().filter(s -> !s.exceeded()).toList();
    }

    /** The longest wait among the violations: after it, every hard limit could admit the same request. */
    public Duration retryAfter() {
        explain();
        return retryAfter;
    }

    /** Whether a concurrency limit refused: a slot may come back any moment, not only after {@link #retryAfter()}. */
    public boolean waitsForSlots() {
        return waitsForSlots;
    }

    /** A JSON-friendly form: the overall retry-after and the statuses split into violations and passed. */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("error", "rate_limit_exceeded");
        map.put("message", getMessage());
        map.put("retry_after_ms", retryAfter().toMillis());
        map.put("violations", violations().stream().map(LimitStatus::toMap).toList());
        map.put("passed", passed().stream().map(LimitStatus::toMap).toList());
        return map;
    }
}
