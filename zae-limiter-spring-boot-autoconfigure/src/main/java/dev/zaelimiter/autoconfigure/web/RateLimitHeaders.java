package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;

import java.time.Duration;
import java.util.List;

/**
 * The values of the rate limit headers, the same in both web stacks. Headers follow
 * draft-ietf-httpapi-ratelimit-headers ({@code RateLimit-Policy} and {@code RateLimit} as Structured Field lists);
 * times are whole seconds.
 */
final class RateLimitHeaders {

    static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    static final String RATE_LIMIT = "RateLimit";
    static final String RETRY_AFTER = "Retry-After";
    static final String PROBLEM_JSON = "application/problem+json";
    /** Prefix of the policy names of a cascade parent's limits. */
    static final String PARENT_PREFIX = "parent.";
    /** The largest Structured Field Integer. */
    static final long SF_INTEGER_MAX = 999_999_999_999_999L;

    /** Receives one header; each stack passes its response's setter. */
    @FunctionalInterface
    interface Sink {
        void set(String name, String value);
    }

    private RateLimitHeaders() {
    }

    /** Whether responses carry the IETF headers: unless {@code zae.limiter.web.headers=none}. */
    static boolean ietf(ZaeLimiterWebProperties properties) {
        return properties.getHeaders() != ZaeLimiterWebProperties.Headers.NONE;
    }

    /**
     * The {@code Retry-After} seconds of a 503 when the store is unavailable.
     *
     * @throws InvalidDeclarationException when {@code zae.limiter.web.unavailable-retry-after} is missing or negative
     */
    static long unavailableRetryAfter(ZaeLimiterWebProperties properties) {
        Duration retryAfter = properties.getUnavailableRetryAfter();
        if (retryAfter == null || retryAfter.isNegative()) {
            throw new InvalidDeclarationException("zae.limiter.web.unavailable-retry-after", "a duration of zero"
                    + " or more is required, such as 1s");
        }
        return seconds(retryAfter);
    }

    /** Whole seconds, rounded up, at least 1: the delay-seconds of Retry-After and of the {@code t} parameter. */
    static long seconds(Duration duration) {
        long millis = duration.toMillis();
        long seconds = millis / 1000 + (millis % 1000 == 0 ? 0 : 1);
        return Math.max(1, seconds);
    }

    /**
     * Sets {@code RateLimit-Policy} ({@code "rpm";q=100}: each hard limit and its capacity) and {@code RateLimit}
     * ({@code "rpm";r=42}: whole tokens available, with {@code t}, the seconds until the request could pass, on each
     * limit that refused it). Soft limits never refuse and are left out; so is everything when no hard limit remains.
     */
    static void set(Sink sink, List<LimitStatus> statuses) {
        set(sink, statuses, null);
    }

    /**
     * {@link #set(Sink, List)}, taking the {@code RateLimit-Policy} value of a single status from {@code policies}
     * (when not {@code null}) while its limit and capacity stay the same.
     */
    static void set(Sink sink, List<LimitStatus> statuses, LastPolicy policies) {
        if (statuses.isEmpty()) {
            return;
        }
        if (statuses.size() == 1) {
            setOne(sink, statuses.get(0), policies);
            return;
        }
        String primary = statuses.get(0).entityId();
        StringBuilder policy = null;
        StringBuilder limits = null;
        for (int i = 0, n = statuses.size(); i < n; i++) {
            LimitStatus s = statuses.get(i);
            if (s.soft()) {
                continue;
            }
            if (policy == null) {
                policy = new StringBuilder(32 * n);
                limits = new StringBuilder(32 * n);
            } else {
                policy.append(", ");
                limits.append(", ");
            }
            boolean parent = !primary.equals(s.entityId());
            appendName(policy, s.limitName(), parent).append(";q=").append(sfInteger(s.capacity()));
            appendName(limits, s.limitName(), parent).append(";r=").append(sfInteger(s.available()));
            if (s.exceeded()) {
                limits.append(";t=").append(seconds(s.retryAfter()));
            }
        }
        if (policy != null) {
            sink.set(RATE_LIMIT_POLICY, policy.toString());
            sink.set(RATE_LIMIT, limits.toString());
        }
    }

    /** {@link #set} for a single status (the entity's own, so no prefix), each value built in one concatenation. */
    private static void setOne(Sink sink, LimitStatus status, LastPolicy policies) {
        if (status.soft()) {
            return;
        }
        String name = status.limitName();
        sink.set(RATE_LIMIT_POLICY, policies != null ? policies.of(name, status.capacity()) : policy(name,
                status.capacity()));
        sink.set(RATE_LIMIT, status.exceeded()
                ? "\"" + name + "\";r=" + sfInteger(status.available()) + ";t=" + seconds(status.retryAfter())
                : "\"" + name + "\";r=" + sfInteger(status.available()));
    }

    private static String policy(String limitName, long capacity) {
        return "\"" + limitName + "\";q=" + sfInteger(capacity);
    }

    /**
     * The {@code RateLimit-Policy} value of one limit, built again only when the limit or its capacity changes: a
     * rule keeps one, since its requests mostly answer with the same single limit. Thread-safe.
     */
    static final class LastPolicy {

        private volatile Policy last;

        private record Policy(String limitName, long capacity, String value) {
        }

        String of(String limitName, long capacity) {
            Policy policy = last;
            if (policy == null || policy.capacity() != capacity || !policy.limitName().equals(limitName)) {
                policy = new Policy(limitName, capacity, policy(limitName, capacity));
                last = policy;
            }
            return policy.value();
        }
    }

    private static StringBuilder appendName(StringBuilder sb, String limitName, boolean parent) {
        // limit names are letters, digits and _ . -, so a Structured Field String needs no escaping
        sb.append('"');
        if (parent) {
            sb.append(PARENT_PREFIX);
        }
        return sb.append(limitName).append('"');
    }

    private static long sfInteger(long value) {
        return Math.max(0, Math.min(value, SF_INTEGER_MAX));
    }

    /** The name a limit has in the headers and the problem body: its own, or {@code parent.} + it for the parent's. */
    static String policyName(LimitStatus status, String primaryEntity) {
        return primaryEntity.equals(status.entityId()) ? status.limitName() : PARENT_PREFIX + status.limitName();
    }
}
