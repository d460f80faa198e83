package dev.zaelimiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * When zae-limiter is set to use DynamoDB and Spring Cloud AWS cannot build the {@code DynamoDbClient} because it finds
 * no AWS region, or the SDK finds no credentials to call DynamoDB with, says so and what to write, instead of the SDK's
 * stack trace. Applies only when zae-limiter chose
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
        String message = cause.getMessage();
        boolean noRegion = message != null && message.contains("Unable to load region");
        boolean noCredentials = message != null && message.contains("Unable to load credentials");
        if (environment == null || !(noRegion || noCredentials)
                || !LimiterStoreConfigurations.dynamoDbChosen(environment)) {
            return null;
        }
        String store = environment.getProperty("zae.limiter.store", "auto");
        String chosen = "zae-limiter is set to use the DynamoDB store (zae.limiter.store=" + store
                + (store.equalsIgnoreCase("dynamodb") ? "" : " with zae.limiter.dynamodb.table set") + ")";
        if (noCredentials) {
            return new FailureAnalysis(chosen + ", but the AWS SDK found no credentials to call DynamoDB with"
                    + " (spring.cloud.aws.credentials.*, the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY environment"
                    + " variables, an AWS profile, or a container or instance role).", "Give the application AWS"
                    + " credentials, such as spring.cloud.aws.credentials.profile.name=<a profile> or the"
                    + " AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY environment variables (see docs/dynamodb.md for"
                    + " the permissions they need); or write zae.limiter.store=memory to use the in-memory store.",
                    cause);
        }
        return new FailureAnalysis(chosen + ", but Spring"
                + " Cloud AWS could not build its DynamoDbClient: no AWS region is configured (" + REGION_PROPERTY
                + ", the AWS_REGION environment variable, the aws.region system property or an AWS profile).",
                "Write " + REGION_PROPERTY + "=<the region of the table>, such as " + REGION_PROPERTY
                        + "=eu-west-1 (or set AWS_REGION in the environment); or write zae.limiter.store=memory to use"
                        + " the in-memory store.", cause);
    }
}
