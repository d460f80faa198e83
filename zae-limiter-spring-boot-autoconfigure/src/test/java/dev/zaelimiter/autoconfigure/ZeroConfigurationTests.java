package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import io.awspring.cloud.autoconfigure.core.AwsAutoConfiguration;
import io.awspring.cloud.autoconfigure.core.CredentialsProviderAutoConfiguration;
import io.awspring.cloud.autoconfigure.core.RegionProviderAutoConfiguration;
import io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration;
import io.awspring.cloud.dynamodb.DynamoDbTemplate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An application with the starter's dependencies (Spring Cloud AWS's DynamoDB auto-configuration included) and no AWS
 * configuration at all starts on the in-memory store; one set to use DynamoDB without a region, or with Spring Cloud
 * AWS's client switched off, gets a failure report that says what to write.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZeroConfigurationTests {

    /** No region from ~/.aws, from EC2 metadata, or from a system property: as on a new developer's machine. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AwsAutoConfiguration.class,
                    CredentialsProviderAutoConfiguration.class, RegionProviderAutoConfiguration.class,
                    DynamoDbAutoConfiguration.class, ZaeLimiterAutoConfiguration.class))
            .withSystemProperties("aws.configFile=/nonexistent/zae-limiter/aws-config",
                    "aws.sharedCredentialsFile=/nonexistent/zae-limiter/aws-credentials",
                    "aws.disableEc2Metadata=true");

    @BeforeAll
    static void noRegionInTheEnvironment() {
        assumeTrue(System.getenv("AWS_REGION") == null && System.getProperty("aws.region") == null,
                "AWS_REGION or aws.region is set: these tests need a machine without a region");
    }

    private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    @Test
    void withNoConfigurationAtAllTheApplicationStartsOnTheInMemoryStoreAndSaysSo(CapturedOutput output) {
        runner.withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=2").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(InMemoryStore.class);
            assertThat(context.getBean(RateLimiter.class).acquire("user-1", "api", Map.of("rpm", 1L))
                    .statuses()).singleElement().satisfies(s -> assertThat(s.available()).isEqualTo(1));
            // the client is still there for an application that asks for it, only not built up front
            assertThat(context.getBeanFactory().getBeanNamesForType(DynamoDbClient.class, true, false)).hasSize(1);
            assertThat(context.getBeanFactory().getBeanNamesForType(DynamoDbTemplate.class, true, false))
                    .hasSize(1);
        });
        assertThat(output.getOut().lines().filter(l -> l.contains("zae-limiter uses the in-memory store")))
                .singleElement().asString().contains("zae.limiter.store is auto and no zae.limiter.dynamodb.table is set");
    }

    @Test
    void anExplicitMemoryStoreNeedsNoRegionEither() {
        runner.withPropertyValues("zae.limiter.store=memory", "zae.limiter.dynamodb.table=t")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryStore.class));
    }

    @Test
    void theDynamoDbStoreWithoutARegionFailsWithAReportNamingTheRegionProperty() {
        runner.withPropertyValues("zae.limiter.store=dynamodb").run(context -> {
            assertThat(context).hasFailed();
            MockEnvironment environment = new MockEnvironment().withProperty("zae.limiter.store", "dynamodb");
            FailureAnalysis analysis = new DynamoDbRegionFailureAnalyzer(environment)
                    .analyze(context.getStartupFailure());
            assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
            assertThat(analysis.getDescription()).contains("zae-limiter").contains("zae.limiter.store=dynamodb")
                    .contains("no AWS region");
            assertThat(analysis.getAction()).contains("spring.cloud.aws.region.static=eu-west-1")
                    .contains("zae.limiter.store=memory");
            assertThat(new DynamoDbRegionFailureAnalyzer(new MockEnvironment()).analyze(context.getStartupFailure()))
                    .as("not zae-limiter's business when it does not use DynamoDB").isNull();
        });
    }

    @Test
    void theDynamoDbStoreWithoutCredentialsFailsWithAReportSayingWhatToGive() {
        assumeTrue(System.getenv("AWS_ACCESS_KEY_ID") == null && System.getenv("AWS_PROFILE") == null
                && System.getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI") == null
                && System.getenv("AWS_WEB_IDENTITY_TOKEN_FILE") == null, "credentials are in the environment");
        runner.withPropertyValues("zae.limiter.store=dynamodb", "zae.limiter.dynamodb.table=rate-limits",
                "spring.cloud.aws.region.static=eu-west-1",
                "spring.cloud.aws.dynamodb.endpoint=http://localhost:9",
                "zae.limiter.resources.api.limits.rpm.capacity=1").run(context -> {
                    assertThat(context).hasFailed();
                    MockEnvironment environment = new MockEnvironment().withProperty("zae.limiter.store", "dynamodb");
                    FailureAnalysis analysis = new DynamoDbRegionFailureAnalyzer(environment)
                            .analyze(context.getStartupFailure());
                    assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription()).contains("zae.limiter.store=dynamodb")
                            .contains("no credentials");
                    assertThat(analysis.getAction()).contains("AWS_ACCESS_KEY_ID").contains("zae.limiter.store=memory");
                });
    }

    @Test
    void theDynamoDbStoreWithSpringCloudAwsDynamoDbSwitchedOffSaysWhatToWrite() {
        runner.withPropertyValues("zae.limiter.store=dynamodb", "spring.cloud.aws.dynamodb.enabled=false")
                .run(context -> {
                    assertThat(context).hasFailed();
                    InvalidDeclarationException cause = cause(context.getStartupFailure(),
                            InvalidDeclarationException.class);
                    assertThat(cause).as("startup failure %s", context.getStartupFailure()).isNotNull();
                    assertThat(cause.property()).isEqualTo("spring.cloud.aws.dynamodb.enabled");
                    FailureAnalysis analysis = new InvalidDeclarationFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("spring.cloud.aws.dynamodb.enabled")
                            .contains("zae-limiter").doesNotContain("rate limit declaration")
                            .doesNotContain("add spring-cloud-aws-starter-dynamodb");
                    assertThat(analysis.getAction()).contains("spring.cloud.aws.dynamodb.enabled=true")
                            .contains("spring.cloud.aws.region.static=");
                });
    }

    @Test
    void theStoreSettingIsNotCalledARateLimitDeclaration() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withPropertyValues("zae.limiter.store=dynamodb").run(context -> {
                    FailureAnalysis analysis = new InvalidDeclarationFailureAnalyzer()
                            .analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).startsWith("The zae-limiter setting 'zae.limiter.store'")
                            .doesNotContain("rate limit declaration");
                    assertThat(analysis.getAction()).contains("zae.limiter.store=memory");
                });
    }

    @Test
    void springCloudAwsTablePrefixIsPutBeforeTheLimitersTable() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .withPropertyValues("spring.cloud.aws.dynamodb.table-prefix=staging-",
                        "zae.limiter.dynamodb.table=prefixed", "zae.limiter.dynamodb.create-table=true",
                        "zae.limiter.store-timeout=10s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DynamoDbStore.class).table()).isEqualTo("staging-prefixed");
                });
    }
}
