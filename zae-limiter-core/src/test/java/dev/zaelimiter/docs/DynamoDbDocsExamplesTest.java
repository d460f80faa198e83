package dev.zaelimiter.docs;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The examples of {@code docs/dynamodb.md}, run against the test server. */
class DynamoDbDocsExamplesTest {

    private final DynamoDbClient dynamoDbClient = Dynalite.get().client();

    @Test
    void dynamodbSetup() throws Exception {
        // tag::dynamodbSetup[]
        DynamoDbStore store = DynamoDbStore.builder()
                .client(dynamoDbClient)                  // reuse the application's DynamoDbClient
                .table("rate-limits")
                .namespace("checkout")                   // keeps applications sharing a table apart
                .stampTtl(Duration.ofSeconds(30))        // how long a process trusts configuration it read
                .requestTimeout(Duration.ofSeconds(1))   // deadline of every request, retries included (500 ms if unset)
                .build();
        store.createTableIfMissing();                    // on-demand table, children index, TTL where supported

        RateLimiter limiter = RateLimiter.builder().store(store).build();
        limiter.admin().setResourceDefaults("payments", List.of(Limit.perSecond("rps", 50)));
        try (Lease lease = limiter.acquire("merchant-42", "payments", Map.of("rps", 1L))) {
            assertThat(lease.statuses()).singleElement()
                    .satisfies(status -> assertThat(status.available()).isEqualTo(49));
        }
        // end::dynamodbSetup[]
        store.close();
    }
}
