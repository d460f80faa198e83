package dev.zaelimiter.autoconfigure.actuate;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.autoconfigure.StoreSetup;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import dev.zaelimiter.TableNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DynamoDB away at startup (the client pointed at a closed port, then back at dynalite): the application starts under
 * either policy, with table creation on or off, applies the policy per call, shows the pending set-up on health, and
 * creates the table and writes the declarations once DynamoDB answers. A table deleted under the running application
 * is named, not reported as an outage.
 */
class StoreAwayAtStartupTests {

    /** Sends every request to a closed port while {@link #away} is set. */
    static final class Away implements ExecutionInterceptor {

        final AtomicBoolean away = new AtomicBoolean(true);
        private final int closedPort;

        Away() throws Exception {
            try (ServerSocket socket = new ServerSocket(0)) {
                closedPort = socket.getLocalPort();
            }
        }

        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context,
                ExecutionAttributes executionAttributes) {
            return away.get() ? context.httpRequest().toBuilder().port(closedPort).build() : context.httpRequest();
        }
    }

    /** A client of the shared dynalite that does not retry, so that each request to the closed port fails at once. */
    private static DynamoDbClient client(Away away) {
        return DynamoDbClient.builder().endpointOverride(Dynalite.get().endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t")))
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .addExecutionInterceptor(away))
                .build();
    }

    private static ApplicationContextRunner runner(DynamoDbClient client) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                        ZaeLimiterActuatorAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> client)
                .withPropertyValues("zae.limiter.store-timeout=10s", "zae.limiter.circuit-breaker.enabled=false");
    }

    /** Waits (polling, bounded) for the background set-up to finish; fails when it does not. */
    private static void awaitSetUp(StoreSetup setup) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!setup.pending().isEmpty() && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        assertThat(setup.pending()).as("still pending: %s", setup.state()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"block, true", "block, false", "allow, true", "allow, false"})
    void startsWithTheStoreAwayAndSetsItUpWhenItAnswers(String policy, boolean createTable) throws Exception {
        String table = "away-" + policy + "-" + createTable;
        if (!createTable) {
            DynamoDbStore.builder().client(Dynalite.get().client()).table(table).build().createTableIfMissing();
        }
        Away away = new Away();
        runner(client(away))
                .withPropertyValues("zae.limiter.dynamodb.table=" + table,
                        "zae.limiter.dynamodb.create-table=" + createTable,
                        "zae.limiter.on-unavailable=" + policy,
                        "zae.limiter.resources.api.limits.rpm.capacity=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    StoreSetup setup = context.getBean(StoreSetup.class);
                    assertThat(setup.pending()).contains("apply the declarations (apply)")
                            .contains(createTable ? "create table '" + table + "'"
                                    : "check that table '" + table + "' exists");
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    if (policy.equals("allow")) {
                        assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).degraded()).isTrue();
                    } else {
                        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                                .isInstanceOf(StoreUnavailableException.class);
                    }
                    HealthReading down = HealthReading.of(context.getBean(ZaeLimiterHealthIndicator.class));
                    assertThat(down.status()).isEqualTo("DOWN");
                    assertThat(down.details()).extractingByKey("setup").asInstanceOf(
                                    org.assertj.core.api.InstanceOfAssertFactories.MAP)
                            .containsKey("lastFailure").extractingByKey("pending").asList()
                            .contains("apply the declarations (apply)");

                    away.away.set(false);
                    if (!createTable) {                       // declared limits, written or not yet
                        assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).statuses())
                                .singleElement().satisfies(s -> assertThat(s.capacity()).isEqualTo(5));
                    }
                    awaitSetUp(setup);
                    assertThat(limiter.acquire("user-2", "api", Map.of("rpm", 1L)).statuses()).singleElement()
                            .satisfies(s -> assertThat(s.available()).isEqualTo(4));
                    assertThat(limiter.admin().getResourceDefaults("api")).containsExactly(Limit.perMinute("rpm", 5));
                    HealthReading up = HealthReading.of(context.getBean(ZaeLimiterHealthIndicator.class));
                    assertThat(up.status()).isEqualTo("UP");
                    assertThat(up.details()).doesNotContainKey("setup");
                });
    }

    @Test
    void aMissingTableFoundOnceTheStoreAnswersStopsTheRetriesAndShowsOnHealth() throws Exception {
        Away away = new Away();
        runner(client(away))
                .withPropertyValues("zae.limiter.dynamodb.table=away-never-created",
                        "zae.limiter.dynamodb.create-table=false",
                        "zae.limiter.resources.api.limits.rpm.capacity=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    StoreSetup setup = context.getBean(StoreSetup.class);
                    away.away.set(false);
                    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (!setup.state().containsKey("failed") && System.nanoTime() < until) {
                        Thread.sleep(50);
                    }
                    assertThat(setup.state()).containsKey("failed").doesNotContainKey("nextAttempt");
                    assertThat((String) setup.state().get("failed")).contains("'away-never-created'")
                            .contains("zae.limiter.dynamodb.create-table");
                    HealthReading health = HealthReading.of(context.getBean(ZaeLimiterHealthIndicator.class));
                    assertThat(health.status()).isEqualTo("DOWN");
                    assertThat(health.details()).containsEntry("missingTable", "away-never-created")
                            .containsKey("setup");
                });
    }

    @Test
    void aTableDeletedUnderTheRunningApplicationIsNamedOnHealthAndInErrors() {
        DynamoDbClient client = Dynalite.get().client();
        runner(client).withPropertyValues("zae.limiter.dynamodb.table=away-deleted",
                        "zae.limiter.dynamodb.create-table=true",
                        "zae.limiter.resources.api.limits.rpm.capacity=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ZaeLimiterHealthIndicator indicator = context.getBean(ZaeLimiterHealthIndicator.class);
                    assertThat(HealthReading.of(indicator).status()).isEqualTo("UP");

                    client.deleteTable(b -> b.tableName("away-deleted"));

                    HealthReading health = HealthReading.of(indicator);
                    assertThat(health.status()).isEqualTo("DOWN");
                    assertThat(health.details()).containsEntry("missingTable", "away-deleted");
                    assertThat((String) health.details().get("error")).contains("TableNotFoundException")
                            .contains("table 'away-deleted' does not exist");
                    assertThatThrownBy(() -> context.getBean(RateLimiter.class)
                            .acquire("user-9", "api", Map.of("rpm", 1L)))
                            .isInstanceOfSatisfying(TableNotFoundException.class,
                                    e -> assertThat(e.table()).isEqualTo("away-deleted"));
                });
    }
}
