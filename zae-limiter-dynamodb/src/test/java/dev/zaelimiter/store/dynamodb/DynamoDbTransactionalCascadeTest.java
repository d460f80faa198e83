package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The transactional cascade, on a mocked client: the test server has no transactions. Configuration reads answer
 * from a fixed set of items; bucket reads from a map the test fills.
 */
class DynamoDbTransactionalCascadeTest {

    private static final String NS = "tx";
    private static final String TABLE = "mocked-table";
    private final MutableClock clock = MutableClock.start();
    private final DynamoDbClient client = mock(DynamoDbClient.class);
    private final Keys keys = new Keys(NS);
    private final Map<Map<String, AttributeValue>, Map<String, AttributeValue>> items = new HashMap<>();
    private RateLimiter limiter;

    @BeforeEach
    @SuppressWarnings("unchecked")
    void setUp() {
        putConfig(ConfigScope.resource("gpt-4"), List.of(Limit.perMinute("rpm", 10)));
        items.put(keys.entity("org-1"), ItemCodec.entityItem(keys, Entity.of("org-1")));
        items.put(keys.entity("user-1"), ItemCodec.entityItem(keys,
                Entity.of("user-1").withParent("org-1").withCascade(true)));
        when(client.batchGetItem(any(Consumer.class))).thenAnswer(call -> {
            BatchGetItemRequest.Builder b = BatchGetItemRequest.builder();
            ((Consumer<BatchGetItemRequest.Builder>) call.getArgument(0)).accept(b);
            List<Map<String, AttributeValue>> found = new ArrayList<>();
            b.build().requestItems().values().forEach(k -> k.keys().forEach(key -> {
                if (items.containsKey(key)) {
                    found.add(items.get(key));
                }
            }));
            return BatchGetItemResponse.builder().responses(Map.of(TABLE, found)).build();
        });
        when(client.getItem(any(Consumer.class))).thenAnswer(call -> {
            GetItemRequest.Builder b = GetItemRequest.builder();
            ((Consumer<GetItemRequest.Builder>) call.getArgument(0)).accept(b);
            Map<String, AttributeValue> item = items.get(b.build().key());
            return item == null ? GetItemResponse.builder().build() : GetItemResponse.builder().item(item).build();
        });
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(TABLE).namespace(NS).clock(clock)
                .cascadeWrite(CascadeWrite.TRANSACTIONAL).build();
        limiter = RateLimiter.builder().store(store).clock(clock).build();
    }

    private void putConfig(ConfigScope scope, List<Limit> limits) {
        Map<String, AttributeValue> item = new HashMap<>(keys.config(scope));
        item.put(ItemCodec.LIMITS, ItemCodec.limits(limits));
        items.put(keys.config(scope), item);
    }

    private Map<String, AttributeValue> bucket(String entity, long balanceMilli) {
        Map<String, AttributeValue> item = new HashMap<>(keys.bucket(new BucketKey(entity, "gpt-4")));
        item.put(ItemCodec.LAST_REFILL, ItemCodec.number(clock.millis()));
        item.put(ItemCodec.VERSION, ItemCodec.number(7));
        item.put(ItemCodec.BALANCE + "rpm", ItemCodec.number(balanceMilli));
        item.put(ItemCodec.CONSUMED + "rpm", ItemCodec.number(0));
        return item;
    }

    @Test
    @SuppressWarnings("unchecked")
    void admittedCascadeIsOneTransactionOfTwoGuardedUpdates() {
        when(client.transactWriteItems(any(Consumer.class))).thenReturn(TransactWriteItemsResponse.builder().build());

        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));

        ArgumentCaptor<Consumer<TransactWriteItemsRequest.Builder>> captor = ArgumentCaptor.forClass(Consumer.class);
        verify(client, times(1)).transactWriteItems(captor.capture());
        TransactWriteItemsRequest.Builder b = TransactWriteItemsRequest.builder();
        captor.getValue().accept(b);
        TransactWriteItemsRequest request = b.build();
        assertThat(request.transactItems()).hasSize(2);
        assertThat(request.transactItems()).allSatisfy(item -> {
            assertThat(item.update()).isNotNull();
            assertThat(item.update().conditionExpression()).as("guarded by the full-at point")
                    .contains("attribute_not_exists(PK) OR").contains("<=");
            assertThat(item.update().updateExpression()).contains("ADD").contains("SET");
        });
        assertThat(request.transactItems().get(0).update().key()).isEqualTo(keys.bucket(new BucketKey("user-1",
                "gpt-4")));
        assertThat(request.transactItems().get(1).update().key()).isEqualTo(keys.bucket(new BucketKey("org-1",
                "gpt-4")));
        verify(client, never()).updateItem(any(Consumer.class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void cancellationByTheParentIsPinnedOnTheParentAndNothingIsWritten() {
        Map<String, AttributeValue> exhaustedParent = bucket("org-1", 0);
        items.put(keys.bucket(new BucketKey("user-1", "gpt-4")), bucket("user-1", 10_000));
        when(client.transactWriteItems(any(Consumer.class))).thenThrow(TransactionCanceledException.builder()
                .cancellationReasons(CancellationReason.builder().code("None").build(),
                        CancellationReason.builder().code("ConditionalCheckFailed").item(exhaustedParent).build())
                .build());

        RateLimitExceededException e = null;
        try {
            limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));
        } catch (RateLimitExceededException expected) {
            e = expected;
        }

        assertThat(e).isNotNull();
        assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly("org-1");
        assertThat(e.passed()).extracting(LimitStatus::entityId).containsExactly("user-1");
        assertThat(e.retryAfter().toMillis()).isEqualTo(6_000);
        verify(client, times(1)).transactWriteItems(any(Consumer.class));
        verify(client, never()).putItem(any(Consumer.class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void cancellationThatRefillsWritesBothBucketsInOneVersionedTransaction() {
        Map<String, AttributeValue> staleChild = bucket("user-1", 0);
        items.put(keys.bucket(new BucketKey("user-1", "gpt-4")), staleChild);
        items.put(keys.bucket(new BucketKey("org-1", "gpt-4")), bucket("org-1", 10_000));
        clock.advance(java.time.Duration.ofSeconds(30));
        when(client.transactWriteItems(any(Consumer.class)))
                .thenThrow(TransactionCanceledException.builder().cancellationReasons(
                        CancellationReason.builder().code("ConditionalCheckFailed").build(),
                        CancellationReason.builder().code("None").build()).build())
                .thenReturn(TransactWriteItemsResponse.builder().build());

        limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L));

        ArgumentCaptor<Consumer<TransactWriteItemsRequest.Builder>> captor = ArgumentCaptor.forClass(Consumer.class);
        verify(client, times(2)).transactWriteItems(captor.capture());
        TransactWriteItemsRequest.Builder b = TransactWriteItemsRequest.builder();
        captor.getAllValues().get(1).accept(b);
        var puts = b.build().transactItems();
        assertThat(puts).hasSize(2).allSatisfy(item -> {
            assertThat(item.put()).isNotNull();
            assertThat(item.put().conditionExpression()).isEqualTo("#v = :v");
            assertThat(item.put().expressionAttributeValues().get(":v").n()).isEqualTo("7");
        });
        assertThat(ItemCodec.bucket(puts.get(0).put().item()).balanceMilli("rpm"))
                .as("30 s of refill at 10/min, minus 1").isEqualTo(4000);
        assertThat(ItemCodec.bucket(puts.get(1).put().item()).balanceMilli("rpm")).isEqualTo(9000);
    }

    @Test
    @SuppressWarnings("unchecked")
    void transportFailuresBecomeStoreUnavailableAndFollowThePolicy() {
        when(client.transactWriteItems(any(Consumer.class))).thenThrow(SdkClientException.create("connection reset"));
        assertThatThrownBy(() -> limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("connection reset");

        RateLimiter lenient = RateLimiter.builder().store(limiter.store()).clock(clock)
                .onUnavailable(Unavailable.ALLOW).build();
        assertThat(lenient.acquire("user-1", "gpt-4", Map.of("rpm", 1L)).degraded()).isTrue();
    }
}
