package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.CorruptStateException;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.TableNotFoundException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The store's requests to its table and how their failures surface: transport and service failures as
 * {@link StoreUnavailableException} (or {@link TableNotFoundException}), items that cannot be decoded as
 * {@link CorruptStateException}, and a closed store as {@link StoreUnavailableException}.
 */
final class StoreCalls {

    private final DeadlineDynamoDbClient client;
    private final String table;

    StoreCalls(DeadlineDynamoDbClient client, String table) {
        this.client = client;
        this.table = table;
    }

    DeadlineDynamoDbClient client() {
        return client;
    }

    String table() {
        return table;
    }

    /**
     * Runs a store operation, turning transport and service failures into {@link StoreUnavailableException}.
     * Conditional-check failures are outcomes, not failures, and pass through.
     */
    <T> T call(String what, Supplier<T> operation) {
        try {
            client.checkOpen();
            return operation.get();
        } catch (ConditionalCheckFailedException e) {
            throw e;
        } catch (SdkException e) {
            throw unavailable(what, e);
        } catch (RejectedExecutionException e) {
            throw new StoreUnavailableException("DynamoDB store could not " + what + ": the store is closed", e);
        }
    }

    /**
     * Decodes an item read from the table. Whatever goes wrong there (a missing attribute, a value of the wrong type,
     * a stored limit that no longer validates) is a {@link CorruptStateException} naming {@code what}, never a raw
     * runtime exception.
     */
    <T> T decode(String what, Supplier<T> decoding) {
        try {
            return decoding.get();
        } catch (RuntimeException e) {
            throw new CorruptStateException("DynamoDB table " + table + " holds " + what + " in a form it cannot read ("
                    + e.getMessage() + "); nothing was written over it. Write it again through RateLimiterAdmin to"
                    + " repair it", e);
        }
    }

    /** The item under {@code key}, read consistently, or {@code null}. */
    Map<String, AttributeValue> getItem(Map<String, AttributeValue> key) {
        return call("read item", () -> {
            var response = client.getItem(b -> b.tableName(table).key(key).consistentRead(true));
            return response.hasItem() && !response.item().isEmpty() ? response.item() : null;
        });
    }

    /**
     * The items at {@code keys}, read consistently in {@code BatchGetItem} requests until none is left unprocessed,
     * keyed by their key; a key without an item has no entry.
     */
    Map<Map<String, AttributeValue>, Map<String, AttributeValue>> batchGet(List<Map<String, AttributeValue>> keys) {
        Map<Map<String, AttributeValue>, Map<String, AttributeValue>> found = new HashMap<>();
        Map<String, KeysAndAttributes> request = Map.of(table,
                KeysAndAttributes.builder().keys(keys).consistentRead(true).build());
        while (!request.isEmpty()) {
            Map<String, KeysAndAttributes> next = request;
            BatchGetItemResponse response = client.batchGetItem(b -> b.requestItems(next));
            for (Map<String, AttributeValue> item : response.responses().getOrDefault(table, List.of())) {
                found.put(Keys.key(item.get(Keys.PK).s(), item.get(Keys.SK).s()), item);
            }
            request = response.hasUnprocessedKeys() ? response.unprocessedKeys() : Map.of();
        }
        return found;
    }

    /** Every item {@code request} matches, all pages read. */
    List<Map<String, AttributeValue>> queryAll(QueryRequest request) {
        return call("query", () -> QueryPages.all(client, request));
    }

    StoreUnavailableException unavailable(String what, SdkException e) {
        return unavailable(table, what, e);
    }

    /**
     * The failure {@code e} of a request to {@code table} as the store reports it: a {@link TableNotFoundException}
     * when DynamoDB answered that the table does not exist, otherwise a {@link StoreUnavailableException}.
     */
    static StoreUnavailableException unavailable(String table, String what, SdkException e) {
        if (e instanceof ResourceNotFoundException) {
            return new TableNotFoundException(table, "DynamoDB store could not " + what + ": table '" + table
                    + "' does not exist (deleted, or never created in this account and region); DynamoDB itself"
                    + " answered. Create the table again (DynamoDbStore.createTableIfMissing) or point the store at"
                    + " the right table", e);
        }
        return new StoreUnavailableException("DynamoDB store could not " + what + ": " + e.getMessage(), e);
    }
}
