package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.net.ServerSocket;
import java.net.URI;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The DynamoDB table is checked at startup (against dynalite): a missing table with table creation off, or a name
 * DynamoDB would refuse, fails startup with a report naming the table and the property, instead of an application
 * that fails, or under {@code on-unavailable=allow} admits unrecorded, every call.
 */
class DynamoDbTableStartupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
            .withBean(DynamoDbClient.class, () -> Dynalite.get().client())
            .withPropertyValues("zae.limiter.store-timeout=10s");

    private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    @ParameterizedTest
    @CsvSource({"block", "allow"})
    void aMissingTableWithCreationOffFailsStartupNamingTheTableAndTheProperties(String policy) {
        runner.withPropertyValues("zae.limiter.dynamodb.table=rate-limts-misspelled",
                "zae.limiter.on-unavailable=" + policy).run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    MissingTableException missing = cause(failure, MissingTableException.class);
                    assertThat(missing).as("startup failure %s", failure).isNotNull();
                    assertThat(missing.table()).isEqualTo("rate-limts-misspelled");
                    FailureAnalysis analysis = new MissingTableFailureAnalyzer().analyze(failure);
                    assertThat(analysis.getDescription()).contains("'rate-limts-misspelled'")
                            .contains("zae.limiter.dynamodb.create-table");
                    assertThat(analysis.getAction()).contains("zae.limiter.dynamodb.table")
                            .contains("zae.limiter.dynamodb.create-table=true");
                });
    }

    @Test
    void anExistingTableWithCreationOffStarts() {
        DynamoDbStore.builder().client(Dynalite.get().client()).table("startup-existing").build()
                .createTableIfMissing();
        runner.withPropertyValues("zae.limiter.dynamodb.table=startup-existing", "zae.limiter.namespace=startup1",
                "zae.limiter.resources.api.limits.rpm.capacity=5").run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DynamoDbStore.class);
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).statuses()).singleElement()
                            .satisfies(s -> assertThat(s.available()).isEqualTo(4));
                });
    }

    @ParameterizedTest
    @CsvSource({
            "zae.limiter.dynamodb.table=ab, zae.limiter.dynamodb.table, 3 to 255",
            "zae.limiter.dynamodb.table=rate limits, zae.limiter.dynamodb.table, 3 to 255",
            "zae.limiter.namespace=a#b, zae.limiter.namespace, namespace",
            "zae.limiter.stamp-ttl=1s, zae.limiter.stamp-ttl, at least"})
    void aBadStoreSettingFailsStartupNamingTheProperty(String setting, String property, String says) {
        runner.withPropertyValues(setting, "zae.limiter.store=dynamodb").run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            InvalidDeclarationException cause = cause(failure, InvalidDeclarationException.class);
            assertThat(cause).as("startup failure %s", failure).isNotNull();
            assertThat(cause.property()).isEqualTo(property);
            assertThat(cause.reason()).contains(says);
            FailureAnalysis analysis = new InvalidDeclarationFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains(property);
        });
    }

    @Test
    void whenDynamoDbCannotBeAskedTheApplicationStartsAndThePolicyApplies() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        URI endpoint = URI.create("http://127.0.0.1:" + closedPort);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> DynamoDbClient.builder().endpointOverride(endpoint)
                        .region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t")))
                        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
                        .build())
                .withPropertyValues("zae.limiter.dynamodb.table=unreachable", "zae.limiter.on-unavailable=allow")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).degraded()).isTrue();
                });
    }

    @Test
    void theAnalyzerIsRegistered() {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
                .load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> {
                }));
        assertThat(analyzers).hasAtLeastOneElementOfType(MissingTableFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(InvalidDeclarationFailureAnalyzer.class);
    }
}
