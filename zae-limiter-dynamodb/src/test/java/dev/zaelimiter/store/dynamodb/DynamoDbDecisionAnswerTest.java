package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a decision's {@code UpdateItem} answers ({@code UPDATED_NEW} where the update writes all that reading the
 * bucket needs, else {@code ALL_NEW}) reads as the same bucket as the item read right after, for every kind of limit;
 * and an answer that lacks what decoding needs leaves the bucket unknown rather than failing the call.
 */
class DynamoDbDecisionAnswerTest {

    private final MutableClock clock = MutableClock.start();
    /** Every decision request sent, refused ones too. */
    private final List<UpdateItemRequest> sent = new ArrayList<>();
    /** Every update that succeeded, with its answer as the store saw it. */
    private final List<Answer> answers = new ArrayList<>();
    private boolean dropParameters;
    private RateLimiter limiter;

    @BeforeEach
    void setUp() {
        ExecutionInterceptor recorder = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest request) {
                    sent.add(request);
                }
            }

            @Override
            public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest request
                        && context.response() instanceof UpdateItemResponse response) {
                    UpdateItemResponse answer = dropParameters && request.returnValues() == ReturnValue.UPDATED_NEW
                            ? withoutParameters(response) : response;
                    answers.add(new Answer(request, answer));
                    return answer;
                }
                return context.response();
            }
        };
        DynamoDbStore store = DynamoDbTestStores.builder(getClass(), clock)
                .client(Dynalite.get().client(recorder)).build();
        limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO).build();
    }

    @Test
    void eachDecisionsAnswerReadsAsTheItemReadRightAfter() {
        int updatedNew = 0;
        updatedNew += decide("names", List.of(Limit.perMinute("a.b", 100), Limit.perMinute("c-d", 100)),
                Map.of("a.b", 1L, "c-d", 2L));
        updatedNew += decide("ttl", List.of(Limit.perMinute("ttl", 100)), Map.of("ttl", 1L));
        updatedNew += decide("quota", List.of(Limit.quota("q", 100, "0 0 * * *", ZoneOffset.UTC)), Map.of("q", 1L));
        updatedNew += decide("window", List.of(Limit.fixedWindow("w", 100, Duration.ofMinutes(1))), Map.of("w", 1L));
        updatedNew += decide("debt", List.of(Limit.perMinute("soft", 2).soft()), Map.of("soft", 5L));
        updatedNew += decide("slots", List.of(Limit.concurrency("slots", 9), Limit.perMinute("rpm", 100)),
                Map.of("slots", 1L, "rpm", 1L));
        updatedNew += decide("untouched", List.of(Limit.perMinute("rpm", 100), Limit.perMinute("tpm", 1000)),
                Map.of("rpm", 1L));
        assertThat(updatedNew).as("decisions answered UPDATED_NEW").isGreaterThanOrEqualTo(25);
    }

    @Test
    void anAnswerLackingWhatDecodingNeedsLeavesTheBucketUnknown() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        dropParameters = true;
        clock.advance(Duration.ofMillis(10));
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        dropParameters = false;
        clock.advance(Duration.ofMillis(10));
        sent.clear();
        limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
        assertThat(sent.get(0).conditionExpression()).as("the bucket was forgotten")
                .contains("attribute_not_exists(PK)");
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 97L);
    }

    /** Five calls on one bucket, each compared with the item read after it; how many were answered UPDATED_NEW. */
    private int decide(String resource, List<Limit> limits, Map<String, Long> consume) {
        limiter.admin().setResourceDefaults(resource, List.of(limits.toArray(Limit[]::new)));
        List<Lease> open = new ArrayList<>();
        int updatedNew = 0;
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMillis(10));
            answers.clear();
            open.add(limiter.acquire("user-1", resource, consume));
            if (answers.isEmpty()) {
                continue;                                   // written whole (the first slot makes the holders map)
            }
            UpdateItemRequest request = answers.get(answers.size() - 1).request();
            Map<String, AttributeValue> answer = answers.get(answers.size() - 1).response().attributes();
            Map<String, AttributeValue> item = DynamoDbTestStores.client().getItem(b -> b
                    .tableName(request.tableName()).key(request.key()).consistentRead(true)).item();
            long at = ItemCodec.lastWrite(item);
            BucketState answered = StoredBucket.decoded(answer, limits, at);
            assertThat(answered).as("%s call %d answered %s", resource, i, request.returnValues())
                    .isEqualTo(StoredBucket.decoded(item, limits, at));
            updatedNew += request.returnValues() == ReturnValue.UPDATED_NEW ? 1 : 0;
        }
        open.forEach(Lease::close);
        return updatedNew;
    }

    private record Answer(UpdateItemRequest request, UpdateItemResponse response) {
    }

    private static UpdateItemResponse withoutParameters(UpdateItemResponse response) {
        Map<String, AttributeValue> attributes = new HashMap<>(response.attributes());
        attributes.keySet().removeIf(name -> name.startsWith(ItemCodec.PARAMETERS));
        return response.toBuilder().attributes(attributes).build();
    }
}
