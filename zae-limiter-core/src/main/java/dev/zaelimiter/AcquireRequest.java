package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One call to rate-limit: who, on what, how much of which limits, and optionally limits that replace the stored
 * configuration for this call only. Immutable; each method returns a new request.
 *
 * <pre>{@code
 * AcquireRequest.of("user-1", "gpt-4").consume("rpm", 1).consume("tpm", 500)
 * }</pre>
 */
public final class AcquireRequest {

    private final String entityId;
    private final String resource;
    private final Map<String, Long> consume;
    private final List<Limit> limits;
    private final List<Target> also;
    private final Duration maxWait;
    private final int priority;
    private final Unavailable onUnavailable;

    /**
     * Another budget spent by the same call, all or nothing with the first: its own entity, resource and amounts,
     * checked against its own stored configuration (and its parent's, when it cascades).
     */
    public record Target(String entityId, String resource, Map<String, Long> consume) {

        public Target {
            Arguments.required("entityId", entityId);
            Arguments.required("resource", resource);
            consume = Collections.unmodifiableMap(new LinkedHashMap<>(Arguments.required("consume", consume)));
        }
    }

    private AcquireRequest(String entityId, String resource, Map<String, Long> consume, List<Limit> limits,
            List<Target> also) {
        this(entityId, resource, consume, limits, also, Duration.ZERO, 0, null);
    }

    private AcquireRequest(String entityId, String resource, Map<String, Long> consume, List<Limit> limits,
            List<Target> also, Duration maxWait, int priority, Unavailable onUnavailable) {
        this.entityId = entityId;
        this.resource = resource;
        this.consume = consume;
        this.limits = limits;
        this.also = also;
        this.maxWait = maxWait;
        this.priority = priority;
        this.onUnavailable = onUnavailable;
    }

    /**
     * This request, willing to wait up to {@code maxWait} for capacity instead of failing at once. The limiter waits
     * only when the wait it computes fits in what is left of {@code maxWait}; otherwise it fails at once, having
     * booked nothing.
     */
    public AcquireRequest maxWait(Duration maxWait) {
        Arguments.required("maxWait", maxWait);
        if (maxWait.isNegative()) {
            throw new ValidationException("maxWait", maxWait, "a wait cannot be negative");
        }
        try {
            maxWait.toMillis();
        } catch (ArithmeticException e) {
            throw new ValidationException("maxWait", maxWait, "a wait is at most " + Long.MAX_VALUE
                    + " milliseconds");
        }
        return new AcquireRequest(entityId, resource, consume, limits, also, maxWait, priority, onUnavailable);
    }

    /**
     * This request with a priority among the waiters of this process on the same bucket: higher goes first. Across
     * processes it bounds how far ahead a waiting call books its slot: above 0 its whole maxWait, at 0 (the default)
     * and below {@code maxWait / 2^(1 - priority)}, so that slots further ahead are left to higher priorities.
     */
    public AcquireRequest priority(int priority) {
        return new AcquireRequest(entityId, resource, consume, limits, also, maxWait, priority, onUnavailable);
    }

    /**
     * This request, with its own answer to a store failure instead of the limiter's
     * ({@link RateLimiter.Builder#onUnavailable}): a login fails closed with {@link Unavailable#BLOCK} while a read
     * fails open with {@link Unavailable#ALLOW}. {@code null} falls back to the limiter's again. The lease
     * ({@link Lease#onUnavailable()}) and the listener's {@link Decision} say which policy applied; the lease's
     * later writes (adjustments, rollback, renewal) follow it too.
     */
    public AcquireRequest onUnavailable(Unavailable onUnavailable) {
        return new AcquireRequest(entityId, resource, consume, limits, also, maxWait, priority, onUnavailable);
    }

    /** The request's own unavailability policy, or {@code null} when the limiter's applies. */
    public Unavailable onUnavailable() {
        return onUnavailable;
    }

    /** How long the call may wait for capacity; zero (the default) fails at once. */
    public Duration maxWait() {
        return maxWait;
    }

    /** The priority among waiters; 0 by default. */
    public int priority() {
        return priority;
    }

    /** A request that consumes nothing yet; add amounts with {@link #consume}. */
    public static AcquireRequest of(String entityId, String resource) {
        return new AcquireRequest(Arguments.required("entityId", entityId), Arguments.required("resource", resource),
                Map.of(), null, List.of());
    }

    /** {@code of(entityId, resource).consume(consume)}, without the request in between when it can. */
    static AcquireRequest of(String entityId, String resource, Map<String, Long> consume) {
        return keepsAsGiven(consume)
                ? new AcquireRequest(entityId, resource, consume, null, List.of())
                : of(entityId, resource).consume(consume);
    }

    /** Whether a request keeps {@code consume} itself (an immutable map) rather than a copy. */
    static boolean keepsAsGiven(Map<String, Long> consume) {
        return consume != null && isImmutable(consume);
    }

    /**
     * This request, also spending {@code consume} of {@code entityId} on {@code resource}: for example a tenant's
     * budget, a recipient's budget and a shared service budget in one call. Either every target is debited or none
     * is; a rejection lists the statuses of all of them.
     */
    public AcquireRequest also(String entityId, String resource, Map<String, Long> consume) {
        List<Target> next = new ArrayList<>(also);
        next.add(new Target(entityId, resource, consume));
        return new AcquireRequest(this.entityId, this.resource, this.consume, limits, List.copyOf(next), maxWait,
                priority, onUnavailable);
    }

    /** This request, also consuming {@code amount} tokens of {@code limitName} (replacing an earlier amount). */
    public AcquireRequest consume(String limitName, long amount) {
        Map<String, Long> next = new LinkedHashMap<>(consume);
        next.put(Arguments.required("limitName", limitName), amount);
        return new AcquireRequest(entityId, resource, Collections.unmodifiableMap(next), limits, also, maxWait,
                priority, onUnavailable);
    }

    /** This request, consuming the given amounts in addition to those already set. */
    public AcquireRequest consume(Map<String, Long> amounts) {
        Arguments.required("consume", amounts);
        if (consume.isEmpty() && isImmutable(amounts)) {
            return new AcquireRequest(entityId, resource, amounts, limits, also, maxWait, priority, onUnavailable);
        }
        Map<String, Long> next = new LinkedHashMap<>(consume);
        next.putAll(amounts);
        return new AcquireRequest(entityId, resource, Collections.unmodifiableMap(next), limits, also, maxWait,
                priority, onUnavailable);
    }

    private static final Class<?> IMMUTABLE_1 = Map.of("a", 1L).getClass();
    private static final Class<?> IMMUTABLE_N = Map.of("a", 1L, "b", 2L).getClass();

    /**
     * Whether {@code map} is an immutable map of the JDK ({@code Map.of}, {@code Map.copyOf}), which holds no null
     * and iterates in a fixed order: a request keeps it as it is instead of copying it.
     */
    private static boolean isImmutable(Map<String, Long> map) {
        return map.getClass() == IMMUTABLE_1 || map.getClass() == IMMUTABLE_N;
    }

    /** This request, checked against {@code limits} instead of the stored configuration of the entity. */
    public AcquireRequest limits(List<Limit> limits) {
        return new AcquireRequest(entityId, resource, consume, List.copyOf(Arguments.required("limits", limits)),
                also, maxWait, priority, onUnavailable);
    }

    public String entityId() {
        return entityId;
    }

    public String resource() {
        return resource;
    }

    /** Tokens to consume per limit name, in the order they were added. */
    public Map<String, Long> consume() {
        return consume;
    }

    /** The per-call limits of the first target, or {@code null} when the stored configuration applies. */
    public List<Limit> limits() {
        return limits;
    }

    /** The other targets, in the order they were added. */
    public List<Target> also() {
        return also;
    }

    @Override
    public String toString() {
        return "AcquireRequest[" + entityId + " on " + resource + ", consume " + consume
                + (limits == null ? "" : ", limits " + limits) + (also.isEmpty() ? "" : ", also " + also) + "]";
    }
}
