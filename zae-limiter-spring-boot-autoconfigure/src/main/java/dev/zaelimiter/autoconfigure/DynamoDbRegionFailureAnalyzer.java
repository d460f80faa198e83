package dev.zaelimiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * When zae-limiter is set to use DynamoDB and Spring Cloud AWS cannot build the {@code DynamoDbClient} because it finds
 * no AWS region, says so and what to write, instead of the SDK's stack trace. Applies only when zae-limiter chose
 * DynamoDB ({@code zae.limiter.store=dynamodb}, or {@code auto} with {@code zae.limiter.dynamodb.table}).
 */
class DynamoDbRegionFailureAnalyzer extends AbstractFailureAnalyzer<SdkClientException> {

    static final String REGION_PROPERTY = "spring.cloud.aws.region.static";

    private final Environment environment;

    DynamoDbRegionFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SdkClientException cause) {
        if (environment == null || cause.getMessage() == null || !cause.getMessage().contains("Unable to load region")
                || !LimiterStoreConfigurations.dynamoDbChosen(environment)) {
            return null;
        }
        String store = environment.getProperty("zae.limiter.store", "auto");
        return new FailureAnalysis("zae-limiter is set to use the DynamoDB store (zae.limiter.store=" + store
                + (store.equalsIgnoreCase("dynamodb") ? "" : " with zae.limiter.dynamodb.table set") + "), but Spring"
                + " Cloud AWS could not build its DynamoDbClient: no AWS region is configured (" + REGION_PROPERTY
                + ", the AWS_REGION environment variable, the aws.region system property or an AWS profile).",
                "Write " + REGION_PROPERTY + "=<the region of the table>, such as " + REGION_PROPERTY
                        + "=eu-west-1 (or set AWS_REGION in the environment); or write zae.limiter.store=memory to use"
                        + " the in-memory store.", cause);
    }
}
