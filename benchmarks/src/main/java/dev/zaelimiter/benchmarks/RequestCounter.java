package dev.zaelimiter.benchmarks;

import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the HTTP requests a client sends, per operation ({@code UpdateItem}, {@code GetItem}...), SDK retries
 * included, and the calls refused with {@code ConditionalCheckFailed}.
 *
 * <p>It also tells apart the reads that only the test server makes necessary. Real DynamoDB returns the old item with
 * a refused condition when the request asks for it ({@code ReturnValuesOnConditionCheckFailure.ALL_OLD}); dynalite
 * does not, so a store has to read the item instead. A {@code GetItem} is counted as such a <em>forced read</em>
 * when it is the next request of the same thread after a conditional write (update, put or delete) that asked for
 * the old item, was refused, and came back without it, and it reads the same key of the same table. On DynamoDB
 * that read would not happen.
 *
 * <p>Per-thread totals ({@link #thread()}) let a caller attribute requests to the decision that made them, since
 * the synchronous client runs interceptors on the calling thread.
 */
final class RequestCounter implements ExecutionInterceptor {

    /** The pseudo-operation under which refused conditions are counted in a {@link #snapshot()}. */
    static final String CONDITION_FAILED = "ConditionalCheckFailed";
    /** The pseudo-operation under which forced reads (also counted under {@code GetItem}) appear in a snapshot. */
    static final String FORCED_READ = "GetItem forced by the server";

    /** What one thread has sent so far. */
    static final class ThreadCounts {
        long requests;
        long forcedReads;
        /** The table and key (or whole item, for a put) of the last refused write that asked for the old item and
         *  did not get it; cleared by the thread's next request. */
        private String pendingTable;
        private Map<String, AttributeValue> pendingKey;
    }

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final LongAdder conditionFailures = new LongAdder();
    private final LongAdder forcedReads = new LongAdder();
    private final ThreadLocal<ThreadCounts> perThread = ThreadLocal.withInitial(ThreadCounts::new);

    /** Whether a snapshot key is a real operation (not {@link #CONDITION_FAILED} or {@link #FORCED_READ}). */
    static boolean isOperation(String key) {
        return !CONDITION_FAILED.equals(key) && !FORCED_READ.equals(key);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        requests.computeIfAbsent(operation == null ? "?" : operation, k -> new LongAdder()).increment();
        ThreadCounts mine = perThread.get();
        mine.requests++;
        if (mine.pendingKey != null && context.request() instanceof GetItemRequest get
                && mine.pendingTable.equals(get.tableName()) && sameKey(mine.pendingKey, get.key())) {
            mine.forcedReads++;
            forcedReads.increment();
        }
        mine.pendingTable = null;
        mine.pendingKey = null;
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (!(context.exception() instanceof ConditionalCheckFailedException refused)) {
            return;
        }
        conditionFailures.increment();
        if (refused.hasItem() && !refused.item().isEmpty()) {
            return;
        }
        SdkRequest request = context.request();
        ThreadCounts mine = perThread.get();
        if (request instanceof UpdateItemRequest u && asksForOldItem(u.returnValuesOnConditionCheckFailure())) {
            mine.pendingTable = u.tableName();
            mine.pendingKey = u.key();
        } else if (request instanceof PutItemRequest p && asksForOldItem(p.returnValuesOnConditionCheckFailure())) {
            mine.pendingTable = p.tableName();
            mine.pendingKey = p.item();
        } else if (request instanceof DeleteItemRequest d
                && asksForOldItem(d.returnValuesOnConditionCheckFailure())) {
            mine.pendingTable = d.tableName();
            mine.pendingKey = d.key();
        }
    }

    /** Whether {@code key} names the item that {@code refused} (a key, or a whole item for a put) wrote. */
    private static boolean sameKey(Map<String, AttributeValue> refused, Map<String, AttributeValue> key) {
        return !key.isEmpty() && refused.entrySet().containsAll(key.entrySet());
    }

    private static boolean asksForOldItem(ReturnValuesOnConditionCheckFailure value) {
        return value == ReturnValuesOnConditionCheckFailure.ALL_OLD;
    }

    /** The live counts of the calling thread: read them before and after a call to attribute its requests. */
    ThreadCounts thread() {
        return perThread.get();
    }

    /** Requests so far per operation, plus {@link #CONDITION_FAILED} and {@link #FORCED_READ}. */
    Map<String, Long> snapshot() {
        Map<String, Long> counts = new TreeMap<>();
        requests.forEach((operation, count) -> counts.put(operation, count.sum()));
        counts.put(CONDITION_FAILED, conditionFailures.sum());
        counts.put(FORCED_READ, forcedReads.sum());
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
