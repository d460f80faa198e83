package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.Unavailable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Configuration of the servlet filter under {@code zae.limiter.web}: which requests are limited (the rules), who
 * they count against, how much they consume, and which headers the responses carry. The filter is registered only
 * when at least one rule is declared. Rules are checked at startup; a bad one fails startup with a message naming
 * its property.
 */
@ConfigurationProperties("zae.limiter.web")
public class ZaeLimiterWebProperties {

    /** The default filter order: just after Spring Security's filter chain (-100), so that the principal is known. */
    public static final int DEFAULT_FILTER_ORDER = -90;

    /** Whether to rate-limit HTTP requests with the servlet filter; it is registered only when a rule is declared. */
    private boolean enabled = true;

    /**
     * Which rate limit headers responses carry: ietf (RateLimit-Policy and RateLimit, as in
     * draft-ietf-httpapi-ratelimit-headers) or none. Retry-After is sent with every 429 and 503 either way.
     */
    private Headers headers = Headers.IETF;

    /**
     * Whether refusals thrown inside Spring MVC (from @RateLimited methods) are answered like the filter's, by the
     * starter's RateLimitExceptionHandler.
     */
    private boolean exceptionHandler = true;

    public boolean isExceptionHandler() {
        return exceptionHandler;
    }

    public void setExceptionHandler(boolean exceptionHandler) {
        this.exceptionHandler = exceptionHandler;
    }

    /**
     * Order of the filter among the servlet filters; the default, -90, runs just after Spring Security's filter
     * chain (-100) so that the principal is known.
     */
    private int filterOrder = DEFAULT_FILTER_ORDER;

    /**
     * Retry-After of the 503 answer sent when the store is unavailable and zae.limiter.on-unavailable is block
     * (whole seconds, at least 1).
     */
    private Duration unavailableRetryAfter = Duration.ofSeconds(1);

    /**
     * The rules, tried in order: the first whose paths and methods match a request applies to it; a request that no
     * rule matches is not limited.
     */
    private List<Rule> rules = new ArrayList<>();

    /** What the RFC 9457 problem bodies of refusals and errors carry. */
    private final Problem problem = new Problem();

    public Problem getProblem() {
        return problem;
    }

    /** What the problem bodies of refusals and errors carry; headers are the same either way. */
    public static class Problem {

        /**
         * Whether problem bodies carry entity ids, capacities, balances and requested amounts (the violations list
         * and the numbers in detail); false leaves the resource, the violated policy names and the retry-after.
         */
        private boolean includeDetails = true;

        public boolean isIncludeDetails() {
            return includeDetails;
        }

        public void setIncludeDetails(boolean includeDetails) {
            this.includeDetails = includeDetails;
        }
    }

    /** The header formats. */
    public enum Headers {
        /** RateLimit-Policy and RateLimit fields, as in draft-ietf-httpapi-ratelimit-headers. */
        IETF,
        /** No rate limit headers (Retry-After is still sent with 429 and 503). */
        NONE
    }

    /** Which requests one rule limits, who they count against, and what they consume. */
    public static class Rule {

        /**
         * Path patterns in Spring PathPattern syntax, matched against the path within the application, such as
         * /api/** or /orders/{id}; at least one.
         */
        private List<String> paths = new ArrayList<>();

        /** HTTP methods the rule applies to, such as GET or POST; empty applies it to every method. */
        private List<String> methods = new ArrayList<>();

        /** The resource whose limits matching requests consume, such as api or openai/gpt-4. */
        private String resource;

        /** Who a matching request counts against. */
        private Entity entity = new Entity();

        /**
         * Tokens each matching request consumes, per limit name, such as rpm: 1. Normally names at least one limit of
         * the resource; an empty map consumes nothing and so never refuses a request.
         */
        private Map<String, Long> consume = new LinkedHashMap<>();

        /**
         * How long a matching request may wait for capacity before it is refused, such as 2s; zero (the default)
         * refuses at once. A request waits only when the computed wait fits.
         */
        private Duration maxWait = Duration.ZERO;

        public Duration getMaxWait() {
            return maxWait;
        }

        /**
         * What a request of this rule gets when the store cannot decide it, instead of zae.limiter.on-unavailable:
         * block answers 503, allow lets it through unrecorded. Unset keeps the limiter's policy.
         */
        private Unavailable onUnavailable;

        public Unavailable getOnUnavailable() {
            return onUnavailable;
        }

        public void setOnUnavailable(Unavailable onUnavailable) {
            this.onUnavailable = onUnavailable;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public List<String> getPaths() {
            return paths;
        }

        public void setPaths(List<String> paths) {
            this.paths = paths;
        }

        public List<String> getMethods() {
            return methods;
        }

        public void setMethods(List<String> methods) {
            this.methods = methods;
        }

        public String getResource() {
            return resource;
        }

        public void setResource(String resource) {
            this.resource = resource;
        }

        public Entity getEntity() {
            return entity;
        }

        public void setEntity(Entity entity) {
            this.entity = entity;
        }

        public Map<String, Long> getConsume() {
            return consume;
        }

        public void setConsume(Map<String, Long> consume) {
            this.consume = consume;
        }
    }

    /** Where the entity id of a request comes from, and how it is protected. */
    public static class Entity {

        /**
         * Where the entity id comes from: header (a request header), principal (the authenticated user's name),
         * remote-address (the client address as the servlet container reports it) or expression (SpEL over the
         * request).
         */
        private String source;

        /** The request header that carries the entity id, with source=header, such as X-Api-Key. */
        private String header;

        /**
         * A SpEL expression over the request, with source=expression: the HttpServletRequest is the root object, so
         * getHeader('X-Org') or remoteAddr work. A null or blank result, or an evaluation error, counts as missing.
         */
        private String expression;

        /**
         * The entity id of requests that carry none (bound as "default"); without it such requests are refused with
         * 400. Used as written, never hashed, so that all such requests share one bucket.
         */
        private String defaultId;

        /** Whether and how the entity id is replaced by a keyed hash before it reaches the limiter. */
        private Hash hash = new Hash();

        public String getSource() {
            return source;
        }

        public void setSource(String source) {
            this.source = source;
        }

        public String getHeader() {
            return header;
        }

        public void setHeader(String header) {
            this.header = header;
        }

        public String getExpression() {
            return expression;
        }

        public void setExpression(String expression) {
            this.expression = expression;
        }

        /** The entity id of requests that carry none, bound from {@code default}. */
        public String getDefault() {
            return defaultId;
        }

        public void setDefault(String defaultId) {
            this.defaultId = defaultId;
        }

        public Hash getHash() {
            return hash;
        }

        public void setHash(Hash hash) {
            this.hash = hash;
        }
    }

    /**
     * A keyed hash of the entity id, for ids that are secrets (API keys): the limiter, the store, logs, metrics and
     * problem bodies only ever see {@code k_} followed by the unpadded base64url HMAC-SHA256 of the id.
     */
    public static class Hash {

        /** Whether to replace the entity id by k_ + base64url(HMAC-SHA256(key, id)). */
        private boolean enabled;

        /**
         * The HMAC-SHA256 key (its UTF-8 bytes), at least 16 characters. Keep it secret (an environment variable) and
         * stable: another key gives every caller a fresh bucket.
         */
        private String key;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getKey() {
            return key;
        }

        public void setKey(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return "Hash[enabled=" + enabled + ", key=" + (key == null ? "none" : "******") + "]";
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Headers getHeaders() {
        return headers;
    }

    public void setHeaders(Headers headers) {
        this.headers = headers;
    }

    public int getFilterOrder() {
        return filterOrder;
    }

    public void setFilterOrder(int filterOrder) {
        this.filterOrder = filterOrder;
    }

    public Duration getUnavailableRetryAfter() {
        return unavailableRetryAfter;
    }

    public void setUnavailableRetryAfter(Duration unavailableRetryAfter) {
        this.unavailableRetryAfter = unavailableRetryAfter;
    }

    public List<Rule> getRules() {
        return rules;
    }

    public void setRules(List<Rule> rules) {
        this.rules = rules;
    }
}
