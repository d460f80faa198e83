package dev.zaelimiter.benchmarks;

import dev.zaelimiter.store.dynamodb.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The counter against dynalite, which does not return the old item with a refused condition: a read of the same key
 * right after such a refusal, on the same thread, is a forced read; any other read is not.
 */
class RequestCounterTest {

    private static final String TABLE = "counter-test";
    private static final Map<String, AttributeValue> A = key("a");
    private static final Map<String, AttributeValue> B = key("b");

    private static DynamoDbClient client;
    private static RequestCounter counter;

    @BeforeAll
    static void createTable() {
        counter = new RequestCounter();
        client = Dynalite.get().client(counter);
        client.createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("PK")
                        .attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build()));
        client.putItem(b -> b.tableName(TABLE).item(Map.of("PK", A.get("PK"), "n", AttributeValue.fromN("1"))));
        client.putItem(b -> b.tableName(TABLE).item(Map.of("PK", B.get("PK"), "n", AttributeValue.fromN("1"))));
    }

    @AfterAll
    static void close() {
        client.close();
    }

    private static Map<String, AttributeValue> key(String pk) {
        return Map.of("PK", AttributeValue.fromS(pk));
    }

    private static void refusedUpdate(Map<String, AttributeValue> key, boolean askForOldItem) {
        assertThatThrownBy(() -> client.updateItem(b -> {
            b.tableName(TABLE).key(key).updateExpression("SET n = :two")
                    .conditionExpression("n = :zero")
                    .expressionAttributeValues(Map.of(":two", AttributeValue.fromN("2"),
                            ":zero", AttributeValue.fromN("0")));
            if (askForOldItem) {
                b.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
            }
        })).isInstanceOf(ConditionalCheckFailedException.class)
                .satisfies(e -> assertThat(((ConditionalCheckFailedException) e).hasItem()
                        && !((ConditionalCheckFailedException) e).item().isEmpty())
                        .as("dynalite returns no old item").isFalse());
    }

    private static void read(Map<String, AttributeValue> key) {
        client.getItem(b -> b.tableName(TABLE).key(key).consistentRead(true));
    }

    private static long forced(Runnable actions) {
        long before = counter.snapshot().get(RequestCounter.FORCED_READ);
        actions.run();
        return counter.snapshot().get(RequestCounter.FORCED_READ) - before;
    }

    @Test
    void aReadOfTheSameKeyRightAfterARefusalThatAskedForTheOldItemIsForced() {
        RequestCounter.ThreadCounts mine = counter.thread();
        long requests = mine.requests;
        long forcedReads = mine.forcedReads;
        assertThat(forced(() -> {
            refusedUpdate(A, true);
            read(A);
            read(A);
        })).isEqualTo(1);
        assertThat(mine.requests - requests).isEqualTo(3);
        assertThat(mine.forcedReads - forcedReads).isEqualTo(1);
    }

    @Test
    void aRefusalThatDidNotAskForTheOldItemForcesNothing() {
        assertThat(forced(() -> {
            refusedUpdate(A, false);
            read(A);
        })).isZero();
    }

    @Test
    void aReadOfAnotherKeyOrAfterAnotherRequestIsNotForced() {
        assertThat(forced(() -> {
            refusedUpdate(A, true);
            read(B);
            refusedUpdate(A, true);
            client.putItem(b -> b.tableName(TABLE).item(Map.of("PK", B.get("PK"), "n", AttributeValue.fromN("1"))));
            read(A);
        })).isZero();
    }

    @Test
    void aReadOnAnotherThreadIsNotForced() {
        assertThat(forced(() -> {
            refusedUpdate(A, true);
            CompletableFuture.runAsync(() -> read(A)).join();
        })).isZero();
    }

    @Test
    void countsEveryRequestPerOperationAndTheRefusedConditions() {
        Map<String, Long> before = counter.snapshot();
        refusedUpdate(B, true);
        read(B);
        Map<String, Long> diff = RequestCounter.difference(counter.snapshot(), before);
        assertThat(diff).containsEntry("UpdateItem", 1L).containsEntry("GetItem", 1L)
                .containsEntry(RequestCounter.CONDITION_FAILED, 1L).containsEntry(RequestCounter.FORCED_READ, 1L);
        assertThat(diff.keySet().stream().filter(RequestCounter::isOperation)).containsExactly("GetItem",
                "UpdateItem");
    }
}
