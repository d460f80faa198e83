package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.ConfigScope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Table names follow DynamoDB's rules, checked when the store is built; a missing table is found before use. */
class DynamoDbTableNameTest {

    private final DynamoDbClient client = DynamoDbTestStores.client();

    @ParameterizedTest
    @ValueSource(strings = {"", "ab", "rate limits", "rate/limits", "räte", "table#1", "t:x"})
    void aTableNameThatBreaksDynamoDbsRulesIsRefusedAtBuildTime(String table) {
        assertThatThrownBy(() -> DynamoDbStore.builder().client(client).table(table).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("table");
                    assertThat(e.value()).isEqualTo(table);
                    assertThat(e.getMessage()).contains("3 to 255");
                });
    }

    @Test
    void aTableNameOfMoreThan255CharactersIsRefused() {
        DynamoDbStore.builder().client(client).table("t".repeat(255)).build().close();
        assertThatThrownBy(() -> DynamoDbStore.builder().client(client).table("t".repeat(256)).build())
                .isInstanceOf(ValidationException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "zae-limiter", "Rate_Limits.v2",
            "arn:aws:dynamodb:eu-west-1:123456789012:table/limits",
            "arn:aws-cn:dynamodb:cn-north-1:123456789012:table/rate_limits"})
    void validNamesAndTableArnsAreAccepted(String table) {
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(table).build();
        assertThat(store.table()).isEqualTo(table);
        store.close();
    }

    @Test
    void anArnOfABadlyNamedTableIsRefused() {
        assertThatThrownBy(() -> DynamoDbStore.builder().client(client)
                .table("arn:aws:dynamodb:eu-west-1:123456789012:table/a b").build())
                .isInstanceOf(ValidationException.class);
    }

    @Test
    void tableExistsTellsAMissingTableFromAnExistingOne() {
        DynamoDbStore existing = DynamoDbTestStores.newStore(getClass(), Clock.systemUTC());
        assertThat(existing.tableExists()).isTrue();
        DynamoDbStore missing = DynamoDbStore.builder().client(client).table("no-such-table-here").build();
        assertThat(missing.tableExists()).isFalse();
        existing.close();
        missing.close();
    }

    @Test
    void tableExistsRaisesATypedErrorWhenDynamoDbCannotBeAsked() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        int closedPort = port;
        try (DynamoDbClient unreachable = DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + closedPort))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t")))
                .build()) {
            DynamoDbStore store = DynamoDbStore.builder().client(unreachable).table("zae-limiter").build();
            assertThatThrownBy(store::tableExists).isInstanceOf(StoreUnavailableException.class)
                    .isNotInstanceOf(TableNotFoundException.class);
            store.close();
        }
    }

    @Test
    void aTableDeletedUnderARunningStoreIsReportedByNameNotAsAnOutage() {
        String table = "deleted-under-store";
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(table).build();
        store.createTableIfMissing();
        store.putLimits(ConfigScope.system(), List.of(Limit.perMinute("rpm", 10)));
        RateLimiter limiter = RateLimiter.builder().store(store).onUnavailable(Unavailable.BLOCK).build();
        assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).statuses()).hasSize(1);

        client.deleteTable(b -> b.tableName(table));

        assertThatThrownBy(() -> store.putLimits(ConfigScope.system(), List.of(Limit.perMinute("rpm", 5))))
                .isInstanceOfSatisfying(TableNotFoundException.class, e -> {
                    assertThat(e.table()).isEqualTo(table);
                    assertThat(e.getMessage()).contains("table '" + table + "' does not exist")
                            .contains("write configuration");
                });
        assertThatThrownBy(() -> limiter.acquire("user-2", "api", Map.of("rpm", 1L)))
                .isInstanceOfSatisfying(TableNotFoundException.class,
                        e -> assertThat(e.table()).isEqualTo(table));
        assertThat(store.tableExists()).isFalse();
        store.close();
    }

    @Test
    void aCreateTableRequestThatFailsIsReportedAsTheStoreBeingUnavailable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ExecutionInterceptor createTableToClosedPort = new ExecutionInterceptor() {
            @Override
            public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
                SdkHttpRequest request = context.httpRequest();
                boolean create = request.firstMatchingHeader("X-Amz-Target").orElse("").endsWith(".CreateTable");
                return create ? request.toBuilder().port(closedPort).build() : request;
            }
        };
        try (DynamoDbClient faulty = Dynalite.get().client(createTableToClosedPort)) {
            DynamoDbStore store = DynamoDbStore.builder().client(faulty).table("create-refused").build();
            assertThatThrownBy(store::createTableIfMissing)
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("could not create table create-refused");
            store.close();
        }
    }
}
