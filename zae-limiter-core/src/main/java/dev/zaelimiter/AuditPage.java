package dev.zaelimiter;

import java.util.List;

/**
 * One page of audit events, newest first.
 *
 * @param events     the events
 * @param nextCursor pass to {@link AuditQuery#after(String)} for the next page; {@code null} on the last page
 */
public record AuditPage(List<AuditEvent> events, String nextCursor) {

    public AuditPage {
        events = List.copyOf(events);
    }
}
