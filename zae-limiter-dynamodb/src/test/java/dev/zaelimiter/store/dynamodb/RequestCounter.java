package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Counts the requests a client sends, per operation (by request class: UpdateItem, GetItem, ...). */
public final class RequestCounter implements ExecutionInterceptor {

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        String name = context.request().getClass().getSimpleName().replace("Request", "");
        counts.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
    }

    public long count(String operation) {
        AtomicLong count = counts.get(operation);
        return count == null ? 0 : count.get();
    }

    public long total() {
        return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Every operation and its count, sorted by name. */
    public Map<String, Long> snapshot() {
        Map<String, Long> snapshot = new TreeMap<>();
        counts.forEach((k, v) -> snapshot.put(k, v.get()));
        return snapshot;
    }

    public void reset() {
        counts.clear();
    }
}
