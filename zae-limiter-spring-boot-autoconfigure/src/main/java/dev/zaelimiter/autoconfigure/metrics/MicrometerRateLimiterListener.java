package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.Decision;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimiterListener;
import dev.zaelimiter.Unavailable;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Records every decision of a {@link dev.zaelimiter.RateLimiter} in Micrometer:
 * <ul>
 *   <li>{@value #DECISIONS}, a counter tagged {@code resource}, {@code outcome} ({@code admitted},
 *       {@code refused}, {@code bypassed}, {@code degraded}) and {@code limit} (the limit that refused the call,
 *       several sorted and joined with {@code ,}, or {@code none}) and {@code on-unavailable} (the unavailability
 *       policy that applied to the call, {@code block} or {@code allow}: the request's own or the limiter's; a
 *       {@code degraded} outcome is always {@code allow}), plus {@code entity} when asked for;</li>
 *   <li>{@value #DECISION_LATENCY}, a timer of how long each decision took, store included, tagged
 *       {@code resource} and {@code outcome};</li>
 *   <li>{@value #PARENT_NOT_DEBITED}, a counter of admitted cascading calls whose parent has no limits for the
 *       resource at any level and so was not debited, tagged {@code resource}.</li>
 *   <li>{@value #SOFT_OVERAGE}, a counter of calls admitted while a soft limit was in debt (its balance below zero
 *       after the call's debit), one increment per overdrawn soft limit, tagged {@code resource} and {@code limit}
 *       (a cascade parent's limit as {@code parent.<name>}), plus {@code entity} when asked for.</li>
 * </ul>
 * Entity ids are left out unless {@code entityTag} is set, so that the number of time series stays bounded.
 */
public class MicrometerRateLimiterListener implements RateLimiterListener {

    /** The decision counter. */
    public static final String DECISIONS = "zae.limiter.decisions";

    /** The decision timer. */
    public static final String DECISION_LATENCY = "zae.limiter.decision.latency";

    /** The counter of cascading calls that could not debit their parent. */
    public static final String PARENT_NOT_DEBITED = "zae.limiter.cascade.parent-not-debited";
    /** The counter of calls admitted while a soft limit was in debt. */
    public static final String SOFT_OVERAGE = "zae.limiter.soft.overage";

    /** The tag naming the unavailability policy that applied to a decision. */
    public static final String ON_UNAVAILABLE = "on-unavailable";

    /** The {@code limit} tag of a decision that no limit refused. */
    public static final String NO_LIMIT = "none";

    private final MeterProvider<Counter> decisions;
    private final MeterProvider<Timer> latency;
    private final MeterProvider<Counter> parentNotDebited;
    private final MeterProvider<Counter> softOverage;
    private final boolean entityTag;

    /**
     * @param registry  where the meters go
     * @param entityTag whether to tag the counter with the entity id (unbounded cardinality)
     */
    public MicrometerRateLimiterListener(MeterRegistry registry, boolean entityTag) {
        this.decisions = Counter.builder(DECISIONS)
                .description("Rate limiter decisions, by resource, outcome and refusing limit")
                .withRegistry(registry);
        this.latency = Timer.builder(DECISION_LATENCY)
                .description("How long rate limiter decisions take, store calls included")
                .withRegistry(registry);
        this.parentNotDebited = Counter.builder(PARENT_NOT_DEBITED)
                .description("Admitted cascading calls whose parent has no limits for the resource, so was not"
                        + " debited")
                .withRegistry(registry);
        this.softOverage = Counter.builder(SOFT_OVERAGE)
                .description("Calls admitted while a soft limit was in debt, by resource and soft limit")
                .withRegistry(registry);
        this.entityTag = entityTag;
    }

    @Override
    public void onParentNotDebited(String entityId, String parentId, String resource) {
        parentNotDebited.withTags("resource", resource).increment();
    }

    @Override
    public void onDecision(Decision decision) {
        Tags tags = Tags.of("resource", decision.resource(),
                "outcome", decision.outcome().name().toLowerCase(Locale.ROOT));
        latency.withTags(tags).record(decision.latency());
        Tags counted = tags.and("limit", limit(decision)).and(ON_UNAVAILABLE, policy(decision));
        if (entityTag) {
            counted = counted.and("entity", decision.entityId());
        }
        decisions.withTags(counted).increment();
        if (decision.outcome() == Decision.Outcome.ADMITTED) {
            countSoftOverage(decision);
        }
    }

    private void countSoftOverage(Decision decision) {
        String primary = decision.entityId();
        for (LimitStatus status : decision.statuses()) {
            if (status.overdrawn()) {
                String limit = primary.equals(status.entityId()) ? status.limitName() : "parent." + status.limitName();
                Tags tags = Tags.of("resource", decision.resource(), "limit", limit);
                softOverage.withTags(entityTag ? tags.and("entity", decision.entityId()) : tags).increment();
            }
        }
    }

    /**
     * The policy that applied to the call, lower case: {@code block} or {@code allow}. A decision that names none
     * (one not made by a limiter) counts under the limiter's default, {@code block}, or {@code allow} when it was
     * {@code degraded}, since only that policy degrades.
     */
    static String policy(Decision decision) {
        Unavailable policy = decision.onUnavailable();
        if (policy == null) {
            policy = decision.outcome() == Decision.Outcome.DEGRADED ? Unavailable.ALLOW : Unavailable.BLOCK;
        }
        return policy.name().toLowerCase(Locale.ROOT);
    }

    /** The limits that refused the call, sorted and joined with commas, or {@value #NO_LIMIT}. */
    static String limit(Decision decision) {
        if (decision.outcome() != Decision.Outcome.REFUSED) {
            return NO_LIMIT;
        }
        String refused = decision.statuses().stream()
                .filter(LimitStatus::exceeded)
                .map(LimitStatus::limitName)
                .distinct()
                .sorted()
                .collect(Collectors.joining(","));
        return refused.isEmpty() ? NO_LIMIT : refused;
    }
}
