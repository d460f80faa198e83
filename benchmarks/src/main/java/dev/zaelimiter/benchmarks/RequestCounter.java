package dev.zaelimiter.benchmarks;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the HTTP requests a client sends, per operation ({@code UpdateItem}, {@code GetItem}...), SDK retries
 * included, and the calls refused with {@code ConditionalCheckFailed}.
 */
final class RequestCounter implements ExecutionInterceptor {

    /** The pseudo-operation under which refused conditions are counted in a {@link #snapshot()}. */
    static final String CONDITION_FAILED = "ConditionalCheckFailed";

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final LongAdder conditionFailures = new LongAdder();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        requests.computeIfAbsent(operation == null ? "?" : operation, k -> new LongAdder()).increment();
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (context.exception() instanceof ConditionalCheckFailedException) {
            conditionFailures.increment();
        }
    }

    /** Requests so far per operation, plus {@link #CONDITION_FAILED}. */
    Map<String, Long> snapshot() {
        Map<String, Long> counts = new TreeMap<>();
        requests.forEach((operation, count) -> counts.put(operation, count.sum()));
        counts.put(CONDITION_FAILED, conditionFailures.sum());
        return counts;
    }

    /** {@code after - before}, per key. */
    static Map<String, Long> difference(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> diff = new TreeMap<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d != 0) {
                diff.put(k, d);
            }
        });
        return diff;
    }
}
