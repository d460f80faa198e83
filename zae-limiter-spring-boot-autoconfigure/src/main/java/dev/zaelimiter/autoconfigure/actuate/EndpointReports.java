package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.Usage;
import dev.zaelimiter.UsageGranularity;
import dev.zaelimiter.RateLimiter;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.lang.Nullable;
import java.time.Duration;
import java.util.Locale;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The usage and audit reports of the {@code ratelimits} endpoint, read from the limiter's store. */
final class EndpointReports {

    private final RateLimiter limiter;

    EndpointReports(RateLimiter limiter) {
        this.limiter = limiter;
    }

    Map<String, Object> usageReport(@Nullable String entity, @Nullable String resource,
            @Nullable String limit, @Nullable String granularity, @Nullable String from, @Nullable String to) {
        if (entity == null) {
            throw new InvalidEndpointRequestException("the usage report needs entity", "missing entity");
        }
        UsageGranularity g = granularity(granularity);
        Instant end = to == null ? endOfCurrentPeriod(g) : Instant.parse(to);
        Instant start = from == null ? defaultStart(g, end) : Instant.parse(from);
        List<Map<String, Object>> rows = limiter.admin().usage(entity, resource, limit, g, start, end).stream()
                .map(Usage::toMap).toList();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("granularity", g.name().toLowerCase(Locale.ROOT));
        body.put("from", start.toString());
        body.put("to", end.toString());
        body.put("usage", rows);
        return body;
    }

    Map<String, Object> topUsageReport(@Nullable String resource, @Nullable String limit,
            @Nullable String granularity, @Nullable String from, @Nullable String to, @Nullable Integer top) {
        if (resource == null || limit == null) {
            throw new InvalidEndpointRequestException("the top-usage report needs resource and limit",
                    "missing resource or limit");
        }
        UsageGranularity g = granularity(granularity);
        Instant end = to == null ? endOfCurrentPeriod(g) : Instant.parse(to);
        Instant start = from == null ? defaultStart(g, end) : Instant.parse(from);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("resource", resource);
        body.put("limit", limit);
        body.put("from", start.toString());
        body.put("to", end.toString());
        body.put("top", limiter.admin().topUsage(resource, limit, g, start, end, top == null ? 10 : top).stream()
                .map(Usage::toMap).toList());
        return body;
    }

    Map<String, Object> auditReport(@Nullable String entity, @Nullable String resource,
            @Nullable String scope, @Nullable String from, @Nullable String to, @Nullable Integer pageSize,
            @Nullable String cursor) {
        AuditQuery query;
        if (entity != null) {
            query = resource == null ? AuditQuery.entity(entity) : AuditQuery.entity(entity, resource);
        } else if (resource != null) {
            query = AuditQuery.resource(resource);
        } else if ("system".equals(scope)) {
            query = AuditQuery.system();
        } else if (scope == null || "all".equals(scope)) {
            query = AuditQuery.all();
        } else {
            throw new InvalidEndpointRequestException("scope is system or all, or name an entity or a resource",
                    "bad scope");
        }
        query = query.between(from == null ? null : Instant.parse(from), to == null ? null : Instant.parse(to))
                .pageSize(pageSize == null ? AuditQuery.DEFAULT_PAGE_SIZE : pageSize).after(cursor);
        AuditPage page = limiter.admin().audit(query);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("events", page.events().stream().map(event -> {
            Map<String, Object> fields = event.toMap();
            fields.values().removeIf(Objects::isNull);
            return fields;
        }).toList());
        if (page.nextCursor() != null) {
            body.put("next_cursor", page.nextCursor());
        }
        return body;
    }

    private static UsageGranularity granularity(@Nullable String granularity) {
        if (granularity == null || granularity.equalsIgnoreCase("hour")) {
            return UsageGranularity.HOUR;
        }
        if (granularity.equalsIgnoreCase("day")) {
            return UsageGranularity.DAY;
        }
        throw new InvalidEndpointRequestException("granularity is hour or day, not '" + granularity + "'",
                "bad granularity");
    }

    private Instant endOfCurrentPeriod(UsageGranularity granularity) {
        return Instant.ofEpochMilli(granularity.periodStart(limiter.clock().millis()) + granularity.millis());
    }

    private static Instant defaultStart(UsageGranularity granularity, Instant end) {
        return end.minus(granularity == UsageGranularity.HOUR ? Duration.ofHours(24) : Duration.ofDays(30));
    }
}
