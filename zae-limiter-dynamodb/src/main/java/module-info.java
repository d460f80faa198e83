/**
 * zae-limiter's DynamoDB store: {@code dev.zaelimiter.store.dynamodb.DynamoDbStore} and its builder.
 */
module dev.zaelimiter.dynamodb {
    requires transitive dev.zaelimiter.core;
    requires transitive software.amazon.awssdk.services.dynamodb;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.awscore;
    requires org.slf4j;

    exports dev.zaelimiter.store.dynamodb;
}
