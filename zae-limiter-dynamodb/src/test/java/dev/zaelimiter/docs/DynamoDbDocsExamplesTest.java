package dev.zaelimiter.docs;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
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

    @Test
    void dynamodbAcrossAChange() {
        MutableClock clock = MutableClock.start();
        DynamoDbStore store = DynamoDbStore.builder().client(dynamoDbClient).table("rate-limits")
                .namespace("reports").clock(clock).build();
        store.createTableIfMissing();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        // tag::dynamodbAcrossAChange[]
        limiter.admin().setResourceDefaults("reports", List.of(Limit.custom("rpm", 100, 100, Duration.ofMinutes(1))));
        limiter.acquire("tenant-7", "reports", Map.of("rpm", 100L)).close();            // drained

        limiter.admin().setResourceDefaults("reports", List.of(Limit.custom("rpm", 100, 10, Duration.ofMinutes(1))));
        clock.advance(Duration.ofMinutes(1));           // the minute since the last write refills at the new rate
        assertThat(limiter.available("tenant-7", "reports")).containsEntry("rpm", 10L);
        limiter.acquire("tenant-7", "reports", Map.of("rpm", 1L)).close();

        clock.advance(Duration.ofMinutes(-5));          // a clock behind the last write counts from that write
        assertThat(limiter.available("tenant-7", "reports")).containsEntry("rpm", 9L);
        // end::dynamodbAcrossAChange[]
        store.close();
    }

    @Test
    void hotBucket() {
        Clock clock = Clock.fixed(Instant.parse("2026-03-01T00:00:00Z"), ZoneOffset.UTC);
        DynamoDbStore store = DynamoDbStore.builder().client(dynamoDbClient).table("rate-limits")
                .namespace("gateway").clock(clock).build();
        store.createTableIfMissing();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        DynamoDbStore otherStore = DynamoDbStore.builder().client(dynamoDbClient).table("rate-limits")
                .namespace("gateway").clock(clock).build();
        RateLimiter otherProcess = RateLimiter.builder().store(otherStore).clock(clock).build();
        // tag::hotBucket[]
        Limit orgLimit = Limit.perSecond("org-rps", 10_000).withLocalReservations();
        limiter.admin().setResourceDefaults("gpt-4", List.of(orgLimit));

        for (int i = 0; i < 1_000; i++) {            // most calls are served from this process's batch
            limiter.acquire("org-acme", "gpt-4", Map.of("org-rps", 1L)).close();
        }
        // another process sees the 1,000 taken and, until they come back, the tokens this one holds unused
        assertThat(otherProcess.available("org-acme", "gpt-4").get("org-rps")).isLessThanOrEqualTo(9_000);

        store.close();                               // gives back what this process holds (so does a quiet spell)
        assertThat(otherProcess.available("org-acme", "gpt-4")).containsEntry("org-rps", 9_000L);
        // end::hotBucket[]
        otherStore.close();
    }
}
