package dev.zaelimiter.store.memory;

import dev.zaelimiter.AuditEvent;
import dev.zaelimiter.AuditPage;
import dev.zaelimiter.AuditQuery;
import dev.zaelimiter.store.AuditStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/** The audit log in the heap: the newest {@code maxEvents} events; older ones are dropped first. */
final class MemoryAudit implements AuditStore {

    private final int maxEvents;
    private final TreeMap<String, AuditEvent> events = new TreeMap<>();

    MemoryAudit(int maxEvents) {
        this.maxEvents = maxEvents;
    }

    @Override
    public synchronized void append(AuditEvent event) {
        events.put(AuditQuery.sortKey(event), event);
        while (events.size() > maxEvents) {
            events.pollFirstEntry();
        }
    }

    @Override
    public synchronized AuditPage read(AuditQuery query) {
        NavigableMap<String, AuditEvent> newestFirst = query.cursor() == null ? events.descendingMap()
                : events.headMap(query.cursor(), false).descendingMap();
        List<AuditEvent> page = new ArrayList<>();
        for (Map.Entry<String, AuditEvent> entry : newestFirst.entrySet()) {
            if (!query.matches(entry.getValue())) {
                continue;
            }
            if (page.size() == query.pageSize()) {
                return new AuditPage(page, AuditQuery.sortKey(page.get(page.size() - 1)));
            }
            page.add(entry.getValue());
        }
        return new AuditPage(page, null);
    }
}
