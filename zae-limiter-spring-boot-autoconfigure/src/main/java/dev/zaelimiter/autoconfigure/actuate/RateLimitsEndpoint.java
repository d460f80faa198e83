package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.BucketView;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitView;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.autoconfigure.DeclarationPlan;
import dev.zaelimiter.autoconfigure.InvalidDeclarationException;
import dev.zaelimiter.autoconfigure.LimitDeclarations;
import dev.zaelimiter.autoconfigure.ZaeLimiterProperties;
import dev.zaelimiter.autoconfigure.LimitDeclarations.EntityLevels;
import dev.zaelimiter.autoconfigure.LimitDeclarations.LevelDeclaration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.lang.Nullable;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code ratelimits} endpoint: what is declared under {@code zae.limiter}, how one entity stands on one resource,
 * and resetting that bucket.
 * <ul>
 *   <li>{@code GET /actuator/ratelimits}: the declared system limits, resources and entities
 *       ({@link #rateLimits()});</li>
 *   <li>{@code GET /actuator/ratelimits/{entity}/{resource}}: the configuration in force and every limit's state
 *       now, read from the store ({@link #bucket}); 404 when the ids are malformed or no limits apply;</li>
 *   <li>{@code DELETE /actuator/ratelimits/{entity}/{resource}}: puts the bucket back to full ({@link #reset}).</li>
 *   <li>{@code GET /actuator/ratelimits/usage|top-usage|audit?...}: usage history and audit log
 *       ({@link #report}).</li>
 * </ul>
 * A resource name may contain {@code /}; the resource selector takes the rest of the path.
 */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {

    private final RateLimiter limiter;
    private static final int FORBIDDEN = 403;

    private final LimitDeclarations declarations;
    private final ZaeLimiterProperties.EndpointWrites writes;
    private final EndpointChanges changes;
    private final EndpointReports reports;

    /**
     * An endpoint without write operations besides the reset.
     *
     * @param limiter      the limiter whose store is inspected and reset
     * @param declarations what the application declares, or {@code null} when it declares nothing
     */
    public RateLimitsEndpoint(RateLimiter limiter, @Nullable LimitDeclarations declarations) {
        this(limiter, declarations, new ZaeLimiterProperties.EndpointWrites());
    }

    /**
     * @param limiter      the limiter whose store is inspected and changed
     * @param declarations what the application declares, or {@code null} when it declares nothing
     * @param writes       which write operations are offered ({@code zae.limiter.endpoint-writes.*})
     */
    public RateLimitsEndpoint(RateLimiter limiter, @Nullable LimitDeclarations declarations,
            ZaeLimiterProperties.EndpointWrites writes) {
        this.limiter = limiter;
        this.declarations = declarations;
        this.writes = writes;
        this.changes = new EndpointChanges(limiter);
        this.reports = new EndpointReports(limiter);
    }

    /**
     * A change, {@code POST /actuator/ratelimits/{action}} with a JSON body, each action off (403) unless its
     * {@code zae.limiter.endpoint-writes} property enables it. The level is named by {@code entity} and
     * {@code resource}: both for an entity on a resource ({@code _default_}: every resource), {@code resource} alone
     * for a resource, neither for the system.
     * <ul>
     *   <li>{@code set-limits} ({@code limits}: the level's limits as the properties of a declaration under
     *       {@code zae.limiter}, {@code name.property=value} separated by {@code ;}), and
     *       {@code delete-limits}: {@code endpoint-writes.limits};</li>
     *   <li>{@code set-disabled} ({@code mode}: {@code enabled}, {@code disabled}, {@code bypass}, or
     *       {@code inherit} to clear it; a resource, or an entity on a resource): {@code endpoint-writes.switches};</li>
     *   <li>{@code pause} ({@code duration}, such as {@code 30s} or {@code PT30S}) and {@code resume}, of a
     *       resource or an entity on it: {@code endpoint-writes.pauses};</li>
     *   <li>{@code set-parent} ({@code entity}, {@code parent}; none: a root): {@code endpoint-writes.parents}.</li>
     * </ul>
     * Each change is an audit event of the current user (the Spring Security principal, when there is one).
     * Answers 200 with what was done, 400 for a malformed request, 404 for an unknown entity.
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> change(@Selector String action, @Nullable String entity,
            @Nullable String resource, @Nullable String limits, @Nullable String mode,
            @Nullable String duration, @Nullable String parent) {
        EndpointChanges.Action chosen = EndpointChanges.Action.of(action);
        if (chosen == null) {
            return answer(WebEndpointResponse.STATUS_BAD_REQUEST, "error", "unknown action '" + action + "': "
                    + String.join(", ", EndpointChanges.Action.paths()));
        }
        if (!chosen.enabledBy(writes)) {
            return answer(FORBIDDEN, "error", action + " is off; enable it with " + chosen.switchProperty() + "=true");
        }
        try {
            String done = chosen.run(changes, new EndpointChanges.Request(entity, resource, limits, mode, duration,
                    parent));
            return answer(WebEndpointResponse.STATUS_OK, "done", done);
        } catch (EntityNotFoundException e) {
            return answer(WebEndpointResponse.STATUS_NOT_FOUND, "error", e.getMessage());
        } catch (ValidationException | InvalidDeclarationException | IllegalArgumentException e) {
            return answer(WebEndpointResponse.STATUS_BAD_REQUEST, "error", e.getMessage());
        }
    }


    private static WebEndpointResponse<Map<String, Object>> answer(int status, String key, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put(key, message);
        return new WebEndpointResponse<>(body, status);
    }

    /** The declared system limits, resources and entities, as written to the store at startup. */
    @ReadOperation
    public RateLimitsDescriptor rateLimits() {
        if (declarations == null) {
            return new RateLimitsDescriptor(List.of(), Map.of(), Map.of());
        }
        Map<String, LevelDescriptor> resources = new LinkedHashMap<>();
        for (LevelDeclaration resource : declarations.resources()) {
            resources.put(resource.resource(), LevelDescriptor.of(resource));
        }
        Map<String, EntityDescriptor> entities = new LinkedHashMap<>();
        for (EntityLevels declared : declarations.entities()) {
            entities.put(declared.entity().id(), EntityDescriptor.of(declared));
        }
        return new RateLimitsDescriptor(LimitDescriptor.of(declarations.system()), resources, entities);
    }

    /**
     * {@code entity} on {@code resource} now: the configuration in force (wherever it was set) and each limit's
     * state. Writes nothing.
     *
     * @return the bucket, or {@code null} (404) when an id is malformed or no limits apply
     */
    @ReadOperation
    @Nullable
    public BucketDescriptor bucket(@Selector String entity, @Selector(match = Match.ALL_REMAINING) String... resource) {
        BucketView view;
        try {
            view = limiter.inspect(entity, join(resource));
        } catch (ValidationException e) {
            return null;
        }
        return view.limits().isEmpty() ? null : BucketDescriptor.of(view);
    }

    /**
     * Puts the bucket of {@code entity} on {@code resource} back to full, as if it had never been used. Limits and
     * other buckets are untouched; a bucket that does not exist stays so. Answers 204, 400 with the reason when an id is malformed, 403 unless {@code zae.limiter.endpoint-writes.resets}
     * is on.
     */
    @DeleteOperation
    public WebEndpointResponse<Map<String, Object>> reset(@Selector String entity,
            @Selector(match = Match.ALL_REMAINING) String... resource) {
        if (!writes.isResets()) {
            return answer(FORBIDDEN, "error", "the reset is off; enable it with zae.limiter.endpoint-writes.resets=true");
        }
        try {
            limiter.admin().resetBucket(entity, join(resource));
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NO_CONTENT);
        } catch (ValidationException e) {
            return answer(WebEndpointResponse.STATUS_BAD_REQUEST, "error", e.getMessage());
        }
    }

    /**
     * A history report, {@code GET /actuator/ratelimits/{report}} with query parameters:
     * <ul>
     *   <li>{@code usage}: the usage of {@code entity} (optionally on {@code resource}, of {@code limit}) per
     *       {@code granularity} ({@code hour}, the default, or {@code day}) over [{@code from}, {@code to})
     *       (ISO-8601 instants; by default the 24 hours, or 30 days, up to the end of the current one);</li>
     *   <li>{@code top-usage}: the {@code top} (10) entities that consumed most of {@code limit} on
     *       {@code resource} over the same kind of window;</li>
     *   <li>{@code audit}: audit events, newest first: of {@code entity} (optionally on {@code resource}), of
     *       {@code resource}, of the system level ({@code scope=system}) or all of them; {@code from}, {@code to},
     *       {@code pageSize} (100) and {@code cursor} (from the page before);</li>
     *   <li>{@code drift}: how the store differs from the declarations now (what startup would add, change or, in
     *       prune mode, remove), and the plan's warnings.</li>
     * </ul>
     *
     * Answers 400 with the reason for an unknown report or a malformed parameter.
     */
    @ReadOperation
    public WebEndpointResponse<Map<String, Object>> report(@Selector String report, @Nullable String entity,
            @Nullable String resource, @Nullable String limit, @Nullable String granularity, @Nullable String from,
            @Nullable String to, @Nullable Integer top, @Nullable String scope, @Nullable Integer pageSize,
            @Nullable String cursor) {
        try {
            return new WebEndpointResponse<>(switch (report) {
                case "usage" -> reports.usageReport(entity, resource, limit, granularity, from, to);
                case "top-usage" -> reports.topUsageReport(resource, limit, granularity, from, to, top);
                case "audit" -> reports.auditReport(entity, resource, scope, from, to, pageSize, cursor);
                case "drift" -> driftReport();
                default -> throw new InvalidEndpointRequestException("unknown report '" + report
                        + "': usage, top-usage, audit or drift", "unknown report");
            });
        } catch (InvalidEndpointRequestException | ValidationException | UnsupportedOperationException
                | DateTimeParseException e) {
            return answer(WebEndpointResponse.STATUS_BAD_REQUEST, "error", e.getMessage());
        }
    }

    private Map<String, Object> driftReport() {
        Map<String, Object> body = new LinkedHashMap<>();
        if (declarations == null) {
            body.put("summary", "nothing declared");
            body.put("drift", List.of());
            return body;
        }
        DeclarationPlan plan = declarations.plan(limiter.admin());
        body.put("mode", declarations.mode().name().toLowerCase(Locale.ROOT));
        body.put("summary", plan.summary());
        body.put("drift", plan.drift().stream().map(change -> {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("kind", change.kind().name().toLowerCase(Locale.ROOT));
            fields.put("target", change.target());
            fields.put("setting", change.setting());
            fields.put("before", change.before());
            fields.put("after", change.after());
            fields.values().removeIf(Objects::isNull);
            return fields;
        }).toList());
        body.put("warnings", plan.warnings());
        return body;
    }

    private static String join(String[] segments) {
        return segments == null ? null : String.join("/", segments);
    }

    private static String string(@Nullable Object value) {
        return value == null ? null : value.toString();
    }

    /** A zone's IANA id; {@code UTC} rather than {@code Z}. */
    private static String zoneId(ZoneId zone) {
        return zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId();
    }

    // ---- descriptors

    /**
     * The declarations.
     *
     * @param system    the system default limits (empty when none are declared)
     * @param resources each declared resource, by name
     * @param entities  each declared entity, by id, roots first
     */
    public record RateLimitsDescriptor(List<LimitDescriptor> system, Map<String, LevelDescriptor> resources,
            Map<String, EntityDescriptor> entities) implements OperationResponseBody {
    }

    /**
     * What one level declares: a resource, or one entity on one resource. {@code null} means not declared there.
     *
     * @param limits   the limits (empty when the level declares none)
     * @param cascade  the cascade policy, or {@code null}
     * @param disabled the disabled mode, or {@code null}
     */
    public record LevelDescriptor(List<LimitDescriptor> limits, @Nullable Boolean cascade,
            @Nullable DisabledMode disabled) {

        static LevelDescriptor of(LevelDeclaration level) {
            return new LevelDescriptor(LimitDescriptor.of(level.limits()), level.cascade(), level.disabled());
        }
    }

    /**
     * One declared entity.
     *
     * @param name      its display name, or {@code null}
     * @param parent    its parent's id, or {@code null} for a root
     * @param cascade   whether its calls also debit the parent
     * @param disabled  its disabled mode on every resource, or {@code null}
     * @param resources what it declares per resource ({@code _default_}: every resource)
     */
    public record EntityDescriptor(@Nullable String name, @Nullable String parent, boolean cascade,
            @Nullable DisabledMode disabled, Map<String, LevelDescriptor> resources) {

        static EntityDescriptor of(EntityLevels declared) {
            Entity entity = declared.entity();
            Map<String, LevelDescriptor> resources = new LinkedHashMap<>();
            for (LevelDeclaration level : declared.resources()) {
                resources.put(level.resource(), LevelDescriptor.of(level));
            }
            return new EntityDescriptor(entity.name(), entity.parentId(), entity.cascade(), declared.disabled(),
                    resources);
        }
    }

    /**
     * One declared limit, with its base values.
     *
     * @param name          the limit
     * @param kind          {@code rate} (drips), {@code quota} (resets on a calendar), {@code session-quota}
     *                      (resets a fixed time after each caller's first request) or {@code fixed-window} (resets
     *                      at every multiple of its window)
     * @param capacity      the base capacity (a quota's allowance)
     * @param refillAmount  tokens returned every refill period; 0 for a quota
     * @param refillPeriod  ISO-8601 duration, or {@code null} for a quota
     * @param soft          whether the limit only meters
     * @param resetSchedule a calendar quota's cron, or {@code null}
     * @param resetAfter    a session quota's length (ISO-8601), or {@code null}
     * @param zone          the time zone of the reset schedule and schedule windows, or {@code null}
     * @param schedule      the schedule windows, in order (empty when unscheduled)
     */
    public record LimitDescriptor(String name, String kind, long capacity, long refillAmount,
            @Nullable String refillPeriod, boolean soft, @Nullable String resetSchedule, @Nullable String resetAfter,
            @Nullable String zone, List<ScheduleDescriptor> schedule) {

        static List<LimitDescriptor> of(@Nullable List<Limit> limits) {
            return limits == null ? List.of() : limits.stream().map(LimitDescriptor::of).toList();
        }

        static LimitDescriptor of(Limit limit) {
            String kind = !limit.isQuota() ? "rate" : limit.resetAfter().isPresent() ? "session-quota"
                    : limit.fixedWindow().isPresent() ? "fixed-window" : "quota";
            return new LimitDescriptor(limit.name(), kind, limit.capacity(), limit.refillAmount(),
                    string(limit.refillPeriod()), limit.isSoft(),
                    limit.resetSchedule().orElse(null),
                    limit.resetAfter().map(Duration::toString).orElse(null),
                    limit.zone().map(RateLimitsEndpoint::zoneId).orElse(null),
                    limit.schedule().stream().map(ScheduleDescriptor::of).toList());
        }
    }

    /**
     * One schedule window: the limit runs with other values in every minute its cron matches.
     *
     * @param cron         the window
     * @param zone         its time zone
     * @param scale        the multiplier of the base capacity and refill, or {@code null} for absolute values
     * @param capacity     the absolute capacity, or {@code null} when scaled
     * @param refillAmount the absolute refill amount, or {@code null} when the base one applies
     * @param refillPeriod the absolute refill period (ISO-8601), or {@code null} when the base one applies
     */
    public record ScheduleDescriptor(String cron, String zone, @Nullable Double scale, @Nullable Long capacity,
            @Nullable Long refillAmount, @Nullable String refillPeriod) {

        static ScheduleDescriptor of(ScheduleEntry entry) {
            boolean absolute = !entry.isScaled();
            return new ScheduleDescriptor(entry.cron(), zoneId(entry.zone()),
                    absolute ? null : entry.scale(), absolute ? entry.capacity() : null,
                    absolute && entry.refillPeriod() != null ? entry.refillAmount() : null,
                    string(entry.refillPeriod()));
        }
    }

    /**
     * One entity on one resource now.
     *
     * @param entity     the entity id
     * @param resource   the resource
     * @param name       the entity's display name, or {@code null}
     * @param parent     the entity's parent, or {@code null} (also when it has no record)
     * @param source     which configuration level supplied the limits: {@code ENTITY_RESOURCE},
     *                   {@code ENTITY_DEFAULT}, {@code RESOURCE} or {@code SYSTEM}
     * @param disabled   the disabled mode in force
     * @param cascadesTo the parent a call also debits, or {@code null} when calls do not cascade
     * @param pausedUntil the end of an upstream pause in force, or {@code null}
     * @param limits     every limit in force, with its state
     */
    public record BucketDescriptor(String entity, String resource, @Nullable String name, @Nullable String parent,
            String source, DisabledMode disabled, @Nullable String cascadesTo, @Nullable Instant pausedUntil,
            List<LimitStateDescriptor> limits)
            implements OperationResponseBody {

        static BucketDescriptor of(BucketView view) {
            Entity record = view.entity();
            return new BucketDescriptor(view.entityId(), view.resource(), record == null ? null : record.name(),
                    record == null ? null : record.parentId(), view.source(), view.disabled(), view.cascadesTo(),
                    view.pausedUntil(), view.limits().stream().map(LimitStateDescriptor::of).toList());
        }
    }

    /**
     * One limit of one bucket now.
     *
     * @param name         the limit
     * @param capacity     the capacity in force now (the active schedule window's, if any)
     * @param available    whole tokens available now (negative when a soft limit is in debt)
     * @param refillAmount tokens returned every refill period now; 0 for a quota
     * @param refillPeriod the refill period in force (ISO-8601), or {@code null} for a quota
     * @param soft         whether the limit only meters
     * @param overdrawn    a soft limit in debt
     * @param activeWindow the cron of the schedule window in force, or {@code null} for the base values
     * @param nextReset    the next instant a quota's allowance comes back (ISO-8601), or {@code null}
     * @param consumed     net tokens consumed over the bucket's life
     */
    public record LimitStateDescriptor(String name, long capacity, long available, long refillAmount,
            @Nullable String refillPeriod, boolean soft, boolean overdrawn, @Nullable String activeWindow,
            @Nullable String nextReset, long consumed) {

        static LimitStateDescriptor of(LimitView view) {
            Instant reset = view.nextReset();
            return new LimitStateDescriptor(view.name(), view.capacity(), view.available(), view.refillAmount(),
                    string(view.refillPeriod()), view.soft(), view.overdrawn(), view.activeWindow(), string(reset),
                    view.consumed());
        }
    }
}
