package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the decision's request holds: the server parses every byte of it, so a bucket this process knows is written
 * with no clause the common case does not need (creating the item, rewriting parameters the stamp fixes) and no
 * placeholder a name does not need. Sizes are the request bodies the SDK sends ({@code docs/dynamodb.md}).
 */
class DynamoDbRequestSizeTest {

    private static final long OPEN = 1_000_000_000L;

    private final MutableClock clock = MutableClock.start();
    private final RequestCounter counter = new RequestCounter();
    private UpdateItemRequest lastUpdate;
    private long lastBytes;
    private RateLimiter limiter;

    @BeforeEach
    void setUp() {
        ExecutionInterceptor sizes = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest update) {
                    lastUpdate = update;
                    lastBytes = context.requestBody().flatMap(b -> b.optionalContentLength()).orElse(-1L);
                }
            }
        };
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock)
                .client(Dynalite.get().client(counter, sizes)).build();
        limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO).build();
        limiter.admin().setResourceDefaults("one", List.of(Limit.perMinute("rpm", OPEN)));
        limiter.admin().setResourceDefaults("three", List.of(Limit.perMinute("rpm", OPEN),
                Limit.perMinute("tpm", OPEN), Limit.perDay("rpd", OPEN)));
    }

    @Test
    void aKnownBucketsUpdateHoldsNoCreatingClauseAndNoPlaceholderName() {
        acquireOne();
        assertThat(lastUpdate.conditionExpression()).as("the first write may create the item")
                .contains("attribute_not_exists(PK)");
        acquireOne();
        assertThat(lastUpdate.conditionExpression()).doesNotContain("attribute_not_exists(PK)");
        assertThat(lastUpdate.updateExpression()).doesNotContain("if_not_exists")
                .contains("t_rpm").contains("c_rpm");
        assertThat(lastUpdate.hasExpressionAttributeNames()).isFalse();
        assertThat(lastUpdate.expressionAttributeValues().keySet()).allMatch(k -> k.length() == 2);
    }

    @Test
    void aKnownBucketsUpdateIsAtMost660BytesForOneLimitAnd175PerLimitMore() {
        acquireOne();
        acquireOne();
        long one = lastBytes;
        acquireThree();
        acquireThree();
        long three = lastBytes;
        assertThat(one).as("one limit (970 bytes before)").isPositive().isLessThanOrEqualTo(660);
        assertThat((three - one) / 2).as("each further limit (272 bytes before)").isLessThanOrEqualTo(175);
    }

    @Test
    void aBucketDeletedBehindAProcessThatKnowsItIsWrittenWholeAgain() {
        acquireOne();
        acquireOne();
        Map<String, AttributeValue> key = lastUpdate.key();
        DynamoDbTestStores.client().deleteItem(b -> b.tableName(lastUpdate.tableName()).key(key));
        counter.reset();
        acquireOne();
        assertThat(counter.snapshot()).as("the update finds no item; it is read and put whole")
                .isEqualTo(Map.of("UpdateItem", 1L, "GetItem", 1L, "PutItem", 1L));
        assertThat(limiter.available("e1", "one")).containsEntry("rpm", OPEN - 1);
        counter.reset();
        acquireOne();
        assertThat(counter.snapshot()).isEqualTo(Map.of("UpdateItem", 1L));
    }

    private void acquireOne() {
        clock.advance(Duration.ofMillis(10));
        limiter.acquire("e1", "one", Map.of("rpm", 1L)).close();
    }

    private void acquireThree() {
        clock.advance(Duration.ofMillis(10));
        limiter.acquire("e3", "three", Map.of("rpm", 1L, "tpm", 100L, "rpd", 1L)).close();
    }
}
