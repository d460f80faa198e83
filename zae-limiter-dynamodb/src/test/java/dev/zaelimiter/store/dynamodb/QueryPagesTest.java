package dev.zaelimiter.store.dynamodb;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Query paging against dynalite: every page is read, and a reader that stops early stops requesting. */
class QueryPagesTest {

    private final RequestCounter counter = new RequestCounter();
    private final DynamoDbClient client = Dynalite.get().client(counter);
    private final String table = DynamoDbTestStores.table(getClass());

    private QueryRequest fiveItemsTwoPerPage(String pk) {
        for (int i = 0; i < 5; i++) {
            String sk = "#ITEM#" + i;
            client.putItem(b -> b.tableName(table).item(Map.of(Keys.PK, AttributeValue.fromS(pk),
                    Keys.SK, AttributeValue.fromS(sk))));
        }
        counter.reset();
        return QueryRequest.builder().tableName(table).keyConditionExpression("#pk = :p")
                .expressionAttributeNames(Map.of("#pk", Keys.PK))
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(pk)))
                .limit(2).build();
    }

    @Test
    void allFollowsTheLastEvaluatedKeyThroughEveryPage() {
        List<Map<String, AttributeValue>> items = QueryPages.all(client, fiveItemsTwoPerPage("pages-all"));

        assertThat(items).extracting(item -> item.get(Keys.SK).s())
                .containsExactlyElementsOf(IntStream.range(0, 5).mapToObj(i -> "#ITEM#" + i).toList());
        assertThat(counter.count("Query")).as("pages of 2, 2 and 1; the short page has no next key")
                .isEqualTo(3);
    }

    @Test
    void itemsRequestsTheNextPageOnlyWhenTheReadOnesRunOut() {
        Iterator<Map<String, AttributeValue>> items =
                QueryPages.items(client, fiveItemsTwoPerPage("pages-lazy")).iterator();

        assertThat(counter.count("Query")).as("nothing before the first item is asked for").isZero();
        items.next();
        items.next();
        assertThat(counter.count("Query")).isEqualTo(1);
        assertThat(items.next().get(Keys.SK).s()).isEqualTo("#ITEM#2");
        assertThat(counter.count("Query")).isEqualTo(2);
    }
}
