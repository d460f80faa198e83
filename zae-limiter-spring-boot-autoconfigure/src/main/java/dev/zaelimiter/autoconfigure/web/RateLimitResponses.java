package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The headers and RFC 9457 problem bodies the filter writes. Headers follow draft-ietf-httpapi-ratelimit-headers
 * (RateLimit-Policy and RateLimit as Structured Field lists); bodies are written by hand, so that the filter needs no
 * JSON library.
 */
final class RateLimitResponses {

    static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    static final String RATE_LIMIT = "RateLimit";
    static final String RETRY_AFTER = "Retry-After";
    static final String PROBLEM_JSON = "application/problem+json";
    /** The problem type draft-ietf-httpapi-ratelimit-headers defines for a request over its quota. */
    static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    static final String ABOUT_BLANK = "about:blank";
    /** Prefix of the policy names of a cascade parent's limits. */
    static final String PARENT_PREFIX = "parent.";
    /** The largest Structured Field Integer. */
    static final long SF_INTEGER_MAX = 999_999_999_999_999L;

    private RateLimitResponses() {
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
    static void setHeaders(HttpServletResponse response, List<LimitStatus> statuses) {
        if (statuses.isEmpty()) {
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
            response.setHeader(RATE_LIMIT_POLICY, policy.toString());
            response.setHeader(RATE_LIMIT, limits.toString());
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

    /** 429: Retry-After, the IETF headers when asked, and a quota-exceeded problem listing each violated limit. */
    static void tooManyRequests(HttpServletResponse response, RateLimitExceededException e, String resource,
            boolean headers) throws IOException {
        long retryAfter = seconds(e.retryAfter());
        response.setHeader(RETRY_AFTER, Long.toString(retryAfter));
        if (headers) {
            setHeaders(response, e.statuses());
        }
        List<LimitStatus> violations = e.violations();
        String primary = e.statuses().isEmpty() ? "" : e.statuses().get(0).entityId();
        Json json = Json.problem(QUOTA_EXCEEDED, "Too Many Requests", 429, detail(violations, primary, resource,
                retryAfter));
        json.field("resource", resource).field("retry_after", retryAfter);
        json.name("violated-policies").openArray();
        for (LimitStatus v : violations) {
            json.value(policyName(v, primary));
        }
        json.closeArray();
        json.name("violations").openArray();
        for (LimitStatus v : violations) {
            json.openObject()
                    .field("policy", policyName(v, primary))
                    .field("entity", v.entityId())
                    .field("resource", v.resource())
                    .field("limit", v.limitName())
                    .field("capacity", v.capacity())
                    .field("available", v.available())
                    .field("requested", v.requested())
                    .field("retry_after", seconds(v.retryAfter()))
                    .closeObject();
        }
        json.closeArray();
        write(response, 429, json);
    }

    private static String detail(List<LimitStatus> violations, String primary, String resource, long retryAfter) {
        String wait = "; retry after " + retryAfter + (retryAfter == 1 ? " second." : " seconds.");
        if (violations.isEmpty()) {
            return "Requests to resource '" + resource + "' are paused" + wait;
        }
        if (violations.size() == 1) {
            LimitStatus v = violations.get(0);
            return "Limit '" + v.limitName() + "'" + (primary.equals(v.entityId()) ? "" : " of the parent entity")
                    + " on resource '" + v.resource() + "' has " + Math.max(0, v.available())
                    + " tokens available and the request needs " + v.requested() + wait;
        }
        StringBuilder names = new StringBuilder();
        for (LimitStatus v : violations) {
            names.append(names.isEmpty() ? "" : ", ").append(policyName(v, primary));
        }
        return violations.size() + " limits on resource '" + resource + "' lack the tokens the request needs ("
                + names + ")" + wait;
    }

    /** A problem with {@code about:blank} as its type and the status phrase as its title, plus extension members. */
    static Json problem(int status, String title, String detail) {
        return Json.problem(ABOUT_BLANK, title, status, detail);
    }

    static void write(HttpServletResponse response, int status, Json json) throws IOException {
        byte[] body = json.closeObject().toString().getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(PROBLEM_JSON);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }

    /** A minimal JSON writer for problem bodies: objects, arrays, strings and integers. */
    static final class Json {

        private final StringBuilder sb = new StringBuilder(256);
        private boolean first = true;

        static Json problem(String type, String title, int status, String detail) {
            Json json = new Json().openObject();
            json.field("type", type).field("title", title).field("status", status);
            if (detail != null) {
                json.field("detail", detail);
            }
            return json;
        }

        Json openObject() {
            separator();
            sb.append('{');
            first = true;
            return this;
        }

        Json closeObject() {
            sb.append('}');
            first = false;
            return this;
        }

        Json openArray() {
            sb.append('[');
            first = true;
            return this;
        }

        Json closeArray() {
            sb.append(']');
            first = false;
            return this;
        }

        Json name(String name) {
            separator();
            string(name).append(':');
            first = true; // the value follows without a comma
            return this;
        }

        Json field(String name, String value) {
            name(name);
            return value(value);
        }

        Json field(String name, long value) {
            name(name);
            first = false;
            sb.append(value);
            return this;
        }

        Json value(String value) {
            separator();
            if (value == null) {
                sb.append("null");
            } else {
                string(value);
            }
            first = false;
            return this;
        }

        private void separator() {
            if (!first) {
                sb.append(',');
            }
        }

        private StringBuilder string(String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                            sb.append(String.format("\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            return sb.append('"');
        }

        @Override
        public String toString() {
            return sb.toString();
        }
    }
}
