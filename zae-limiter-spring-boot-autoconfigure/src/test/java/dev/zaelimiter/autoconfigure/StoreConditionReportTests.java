package dev.zaelimiter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The condition that picks the DynamoDB store reports as Spring Boot's own conditions do (a
 * {@code ConditionMessage} naming the condition), and the same rule answers the other places that ask whether
 * DynamoDB is chosen.
 */
class StoreConditionReportTests {

    @Test
    void reportsWhyTheDynamoDbStoreIsOrIsNotChosen() {
        assertOutcome(new MockEnvironment().withProperty("zae.limiter.store", "dynamodb"), true,
                "zae-limiter DynamoDB store zae.limiter.store is dynamodb");
        assertOutcome(new MockEnvironment().withProperty("zae.limiter.dynamodb.table", "limits"), true,
                "zae-limiter DynamoDB store zae.limiter.store is auto and zae.limiter.dynamodb.table is set");
        assertOutcome(new MockEnvironment(), false,
                "zae-limiter DynamoDB store zae.limiter.store is auto and no zae.limiter.dynamodb.table is set");
        assertOutcome(new MockEnvironment().withProperty("zae.limiter.store", "memory")
                .withProperty("zae.limiter.dynamodb.table", "limits"), false,
                "zae-limiter DynamoDB store zae.limiter.store is memory");
    }

    private static void assertOutcome(MockEnvironment environment, boolean match, String message) {
        var outcome = LimiterStoreConfigurations.DynamoDbChosen.outcome(environment);
        assertThat(outcome.isMatch()).isEqualTo(match);
        assertThat(outcome.getMessage()).isEqualTo(message);
        assertThat(LimiterStoreConfigurations.dynamoDbChosen(environment)).isEqualTo(match);
    }
}
