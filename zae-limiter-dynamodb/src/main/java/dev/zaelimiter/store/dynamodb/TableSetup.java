package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.ConfigScope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The store's table itself: its name's rule, whether it exists, and creating it with its index and TTL. What each
 * operation does is documented on the store's public {@code tableExists()} and {@code createTableIfMissing()}.
 */
final class TableSetup {

    /** Logs under the store's class name, as before the split, so log configuration written for it still applies. */
    private static final Logger log = LoggerFactory.getLogger("dev.zaelimiter.store.dynamodb.DynamoDbStore");

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z0-9_.-]{3,255}");
    private static final Pattern TABLE_ARN =
            Pattern.compile("arn:[a-z0-9-]+:dynamodb:[a-z0-9-]+:[0-9]{12}:table/(.*)");

    private final StoreCalls calls;
    private final Keys keys;
    private final Duration tableWait;

    TableSetup(StoreCalls calls, Keys keys, Duration tableWait) {
        this.calls = calls;
        this.keys = keys;
        this.tableWait = tableWait;
    }

    /**
     * A table name as DynamoDB accepts it: 3 to 255 letters, digits and {@code _ . -}; or the ARN of such a table
     * (for a table of another account).
     */
    static String tableName(String table) {
        Objects.requireNonNull(table, "table");
        Matcher arn = TABLE_ARN.matcher(table);
        String name = arn.matches() ? arn.group(1) : table;
        if (!TABLE_NAME.matcher(name).matches()) {
            throw new ValidationException("table", table, "a DynamoDB table name is 3 to 255 letters, digits and"
                    + " _ . - (or the ARN of such a table)");
        }
        return table;
    }

    /** Whether the table exists, asked with one read of the system configuration item. */
    boolean exists() {
        try {
            calls.client().getItem(b -> b.tableName(calls.table()).key(keys.config(ConfigScope.system()))
                    .projectionExpression(Keys.PK));
            return true;
        } catch (ResourceNotFoundException missing) {
            return false;
        } catch (SdkException e) {
            throw calls.unavailable("check table " + calls.table(), e);
        }
    }

    /** Creates the table when missing, waits until it is active and turns on TTL; whether it was created. */
    boolean createIfMissing() {
        String table = calls.table();
        boolean created;
        try {
            if (!TableWait.usable(calls.client().describeTable(b -> b.tableName(table)).table().tableStatus())) {
                TableWait.untilActive(calls.client(), table, tableWait);         // another process is creating it
            }
            created = false;
        } catch (ResourceNotFoundException missing) {
            try {
                created = createAndWait();
            } catch (SdkException e) {
                // thrown inside this catch, so the catch below would not see it
                throw calls.unavailable("create table " + table, e);
            }
        } catch (SdkException e) {
            throw calls.unavailable("describe table " + table, e);
        }
        try {
            calls.client().updateTimeToLive(b -> b.tableName(table)
                    .timeToLiveSpecification(s -> s.attributeName(ItemCodec.TTL).enabled(true)));
        } catch (SdkException e) {
            log.warn("could not enable TTL on table {} (attribute '{}'): {}; idle default-derived buckets will not"
                    + " expire", table, ItemCodec.TTL, e.getMessage());
        }
        return created;
    }

    /** Creates the table (or finds another process creating it) and waits until it is active. */
    private boolean createAndWait() {
        String table = calls.table();
        boolean created;
        try {
            calls.client().createTable(b -> b.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            attribute(Keys.PK), attribute(Keys.SK), attribute(Keys.GSI1PK), attribute(Keys.GSI1SK))
                    .keySchema(key(Keys.PK, KeyType.HASH), key(Keys.SK, KeyType.RANGE))
                    .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                            .indexName(Keys.GSI1)
                            .keySchema(key(Keys.GSI1PK, KeyType.HASH), key(Keys.GSI1SK, KeyType.RANGE))
                            .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                            .build()));
            created = true;
        } catch (ResourceInUseException raced) {
            created = false;
        }
        TableWait.untilActive(calls.client(), table, tableWait);
        log.info("created DynamoDB table {}", table);
        return created;
    }

    private static AttributeDefinition attribute(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }
}
