package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Reads the items of a DynamoDB query page after page, following {@code LastEvaluatedKey} until a page has none
 * (or an empty one). {@link #items} fetches a page only when the caller asks for an item beyond the pages read, so a
 * caller that stops early makes no further requests; {@link #all} reads every page. SDK errors pass through.
 */
final class QueryPages {

    private QueryPages() {
    }

    /** Every item the query matches, in the order DynamoDB returns them. */
    static List<Map<String, AttributeValue>> all(DynamoDbClient client, QueryRequest request) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        items(client, request).forEach(items::add);
        return items;
    }

    /** The query's items, read lazily: the next page is requested when the items read so far run out. */
    static Iterable<Map<String, AttributeValue>> items(DynamoDbClient client, QueryRequest request) {
        return () -> new Iterator<>() {
            private Iterator<Map<String, AttributeValue>> page = Collections.emptyIterator();
            private Map<String, AttributeValue> start;
            private boolean more = true;

            @Override
            public boolean hasNext() {
                while (!page.hasNext() && more) {
                    QueryResponse response = client.query(
                            start == null ? request : request.toBuilder().exclusiveStartKey(start).build());
                    page = response.items().iterator();
                    start = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty()
                            ? response.lastEvaluatedKey() : null;
                    more = start != null;
                }
                return page.hasNext();
            }

            @Override
            public Map<String, AttributeValue> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return page.next();
            }
        };
    }
}
