package dev.zaelimiter.benchmarks;

import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * The baseline: the compare-and-swap design bucket4j uses for DynamoDB. Every decision reads the whole bucket state
 * with a strongly consistent {@code GetItem}, refills and consumes in Java, and writes the whole state back with a
 * {@code PutItem} conditioned on the version it read; a refused condition starts over (no limit, no back-off, as in
 * bucket4j's {@code AbstractCompareAndSwapBasedProxyManager}). A rejection writes nothing, which is the cheapest
 * reading of bucket4j (it skips the write when the command leaves the state unchanged).
 *
 * <p>One greedy token bucket per key: {@code capacity} tokens, {@code refill} tokens back per {@code periodMillis},
 * kept in milli-tokens as our store keeps them. The state is one binary attribute (balance, last refill) plus a
 * version number, as bucket4j stores a serialized state.
 */
final class ReadThenWriteBaseline {

    static final String PK = "PK";
    static final String SK = "SK";
    static final String STATE = "st";
    static final String VERSION = "v";

    private final DynamoDbClient client;
    private final String table;
    private final String prefix;
    private final long capacityMilli;
    private final long refillMilli;
    private final long periodMillis;
    private final Clock clock;

    ReadThenWriteBaseline(DynamoDbClient client, String table, String prefix, long capacity, long refill,
            long periodMillis, Clock clock) {
        this.client = client;
        this.table = table;
        this.prefix = prefix;
        this.capacityMilli = Math.multiplyExact(capacity, 1000L);
        this.refillMilli = Math.multiplyExact(refill, 1000L);
        this.periodMillis = periodMillis;
        this.clock = clock;
    }

    /** The item key of bucket {@code key}. Build it once per key. */
    Map<String, AttributeValue> key(String key) {
        return Map.of(PK, AttributeValue.fromS(prefix + "#" + key), SK, AttributeValue.fromS("#STATE"));
    }

    /** Takes {@code tokens} from the bucket at {@code key} if it has them; never waits. */
    boolean tryConsume(Map<String, AttributeValue> key, long tokens) {
        long amount = tokens * 1000L;
        while (true) {
            GetItemResponse read = client.getItem(b -> b.tableName(table).key(key).consistentRead(true));
            Map<String, AttributeValue> item = read.hasItem() && !read.item().isEmpty() ? read.item() : null;
            long now = clock.millis();
            long balance;
            long lastRefill;
            long version;
            if (item == null) {
                balance = capacityMilli;
                lastRefill = now;
                version = 0;
            } else {
                ByteBuffer state = item.get(STATE).b().asByteBuffer();
                balance = state.getLong();
                lastRefill = state.getLong();
                version = Long.parseLong(item.get(VERSION).n());
            }
            long elapsed = now - lastRefill;
            if (elapsed > 0) {
                long refilled = Math.multiplyHigh(elapsed, refillMilli) == 0
                        ? elapsed * refillMilli / periodMillis : Long.MAX_VALUE;
                balance = refilled >= capacityMilli - balance ? capacityMilli : balance + refilled;
                lastRefill = now;
            }
            if (balance < amount) {
                return false;
            }
            balance -= amount;
            Map<String, AttributeValue> next = new HashMap<>(key);
            next.put(STATE, AttributeValue.fromB(SdkBytes.fromByteBuffer(
                    ByteBuffer.allocate(16).putLong(balance).putLong(lastRefill).flip())));
            next.put(VERSION, AttributeValue.fromN(Long.toString(version + 1)));
            PutItemRequest.Builder put = PutItemRequest.builder().tableName(table).item(next);
            if (item == null) {
                put.conditionExpression("attribute_not_exists(PK)");
            } else {
                put.conditionExpression("#v = :v")
                        .expressionAttributeNames(Map.of("#v", VERSION))
                        .expressionAttributeValues(Map.of(":v", AttributeValue.fromN(Long.toString(version))));
            }
            try {
                client.putItem(put.build());
                return true;
            } catch (ConditionalCheckFailedException lost) {
                // somebody wrote in between: read again
            }
        }
    }
}
