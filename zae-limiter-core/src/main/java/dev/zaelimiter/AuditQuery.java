package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * Which audit events to read, newest first, one page at a time.
 *
 * <pre>{@code
 * AuditPage page = admin.audit(AuditQuery.entity("tenant-7").between(monday, tuesday).pageSize(50));
 * AuditPage next = admin.audit(query.after(page.nextCursor()));
 * }</pre>
 *
 * @param target   whose events: all, the system level, one resource, or one entity
 * @param entityId the entity for {@link Target#ENTITY}
 * @param resource the resource for {@link Target#RESOURCE}; for {@link Target#ENTITY}, only its events on this
 *                 resource when not {@code null}
 * @param from     oldest instant, inclusive ({@code null}: no bound)
 * @param to       newest instant, exclusive ({@code null}: no bound)
 * @param pageSize events per page, 1 to {@value #MAX_PAGE_SIZE}
 * @param cursor   the {@link AuditPage#nextCursor()} of the page before, or {@code null} for the first page; any
 *                 other text is a {@link ValidationException} (a client paging with a bad cursor would otherwise
 *                 read the first page again and again)
 */
public record AuditQuery(Target target, String entityId, String resource, Instant from, Instant to, int pageSize,
        String cursor) {

    public static final int MAX_PAGE_SIZE = 1000;
    public static final int DEFAULT_PAGE_SIZE = 100;

    /** Whose events a query reads. */
    public enum Target { ALL, SYSTEM, RESOURCE, ENTITY }

    public AuditQuery {
        if (target == null) {
            throw new ValidationException("target", null, "say whose events to read");
        }
        if (target == Target.ENTITY && entityId == null) {
            throw new ValidationException("entityId", null, "an entity query names the entity");
        }
        if (target == Target.RESOURCE && resource == null) {
            throw new ValidationException("resource", null, "a resource query names the resource");
        }
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new ValidationException("pageSize", pageSize, "a page holds 1 to " + MAX_PAGE_SIZE + " events");
        }
        if (from != null) {
            Arguments.epochMillis("from", from);
        }
        if (to != null) {
            Arguments.epochMillis("to", to);
        }
        if (from != null && to != null && !from.isBefore(to)) {
            throw new ValidationException("from", from, "the range must end after it starts (" + to + ")");
        }
        if (cursor != null && !CURSOR.matcher(cursor).matches()) {
            throw new ValidationException("cursor", cursor, "not a cursor this log gave: pass the nextCursor() of the"
                    + " page before, or none for the first page");
        }
    }

    /** What {@link #sortKey} makes: the event's epoch milliseconds, {@code #}, its id. */
    private static final Pattern CURSOR = Pattern.compile("(?:-\\d{14,}|\\d{15,})#.+", Pattern.DOTALL);

    /** Every event. */
    public static AuditQuery all() {
        return new AuditQuery(Target.ALL, null, null, null, null, DEFAULT_PAGE_SIZE, null);
    }

    /** Changes of the system defaults. */
    public static AuditQuery system() {
        return new AuditQuery(Target.SYSTEM, null, null, null, null, DEFAULT_PAGE_SIZE, null);
    }

    /** Changes of {@code resource}'s own level (defaults, switches, pauses). */
    public static AuditQuery resource(String resource) {
        return new AuditQuery(Target.RESOURCE, null, resource, null, null, DEFAULT_PAGE_SIZE, null);
    }

    /** Changes of {@code entityId}: its record and its levels on every resource. */
    public static AuditQuery entity(String entityId) {
        return new AuditQuery(Target.ENTITY, entityId, null, null, null, DEFAULT_PAGE_SIZE, null);
    }

    /** Changes of {@code entityId} on {@code resource}. */
    public static AuditQuery entity(String entityId, String resource) {
        return new AuditQuery(Target.ENTITY, entityId, resource, null, null, DEFAULT_PAGE_SIZE, null);
    }

    public AuditQuery between(Instant from, Instant to) {
        return new AuditQuery(target, entityId, resource, from, to, pageSize, cursor);
    }

    public AuditQuery pageSize(int pageSize) {
        return new AuditQuery(target, entityId, resource, from, to, pageSize, cursor);
    }

    /** The page after the one that returned {@code cursor}. */
    public AuditQuery after(String cursor) {
        return new AuditQuery(target, entityId, resource, from, to, pageSize, cursor);
    }

    /** Whether {@code event} belongs to this query's target and range (not its page). */
    public boolean matches(AuditEvent event) {
        Arguments.required("event", event);
        boolean inTarget = switch (target) {
            case ALL -> true;
            case SYSTEM -> event.scope() == AuditScope.SYSTEM;
            case RESOURCE -> event.scope() == AuditScope.RESOURCE && resource.equals(event.resource());
            case ENTITY -> entityId.equals(event.entityId())
                    && (resource == null || resource.equals(event.resource()));
        };
        return inTarget && (from == null || !event.at().isBefore(from)) && (to == null || event.at().isBefore(to));
    }

    /**
     * The order of events, newest first: a key that sorts like the event's instant then id. Cursors are such keys.
     */
    public static String sortKey(AuditEvent event) {
        return String.format("%015d#%s", Arguments.required("event", event).at().toEpochMilli(), event.id());
    }
}
