package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.StoreUnavailableException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for a table to become usable, polling {@code DescribeTable} every {@value #POLL_MILLIS} ms (the SDK's table
 * waiter polls every 20 s, so a table that is still being created on its first poll costs 20 s) and giving up with
 * a {@link StoreUnavailableException} that names the table and its status after a bounded time.
 */
final class TableWait {

    /** How long to wait when not told otherwise: on-demand tables usually become active within seconds. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

    static final long POLL_MILLIS = 250;

    private TableWait() {
    }

    /** Whether a table in {@code status} takes requests. */
    static boolean usable(TableStatus status) {
        return status == TableStatus.ACTIVE || status == TableStatus.UPDATING;
    }

    /**
     * Returns once {@code table} is {@code ACTIVE} (or {@code UPDATING}, which takes requests too); raises at once when
     * it is being deleted or is otherwise unusable, and after {@code timeout} when it is still being created.
     */
    static void untilActive(DynamoDbClient client, String table, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            TableStatus status;
            try {
                status = client.describeTable(b -> b.tableName(table)).table().tableStatus();
            } catch (ResourceNotFoundException notYet) {
                status = null;                              // just created, not visible yet
            }
            if (usable(status)) {
                return;
            }
            if (status != null && status != TableStatus.CREATING) {
                throw new StoreUnavailableException("DynamoDB table " + table + " is " + status
                        + ", not ACTIVE; it cannot be used", null);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new StoreUnavailableException("DynamoDB table " + table + " is still "
                        + (status == null ? "not visible" : status) + " after " + timeout.toMillis()
                        + " ms; try again once it is ACTIVE", null);
            }
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS)));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new StoreUnavailableException("interrupted while waiting for DynamoDB table " + table, null);
            }
        }
    }
}
