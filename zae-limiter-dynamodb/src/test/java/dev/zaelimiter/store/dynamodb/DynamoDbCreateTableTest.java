package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.StoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveResponse;

import java.time.Duration;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * {@code createTableIfMissing} on a table that takes time to become active, on a mocked client (dynalite creates
 * tables at once): it polls briefly instead of the SDK waiter's 20 s, and gives up with a clear error.
 */
@Timeout(60)
class DynamoDbCreateTableTest {

    private final DynamoDbClient client = mock(DynamoDbClient.class);

    private static DescribeTableResponse status(TableStatus status) {
        return DescribeTableResponse.builder().table(t -> t.tableName("tbl").tableStatus(status)).build();
    }

    private DynamoDbStore store(Duration tableWait) {
        when(client.updateTimeToLive(any(Consumer.class))).thenReturn(UpdateTimeToLiveResponse.builder().build());
        when(client.createTable(any(Consumer.class))).thenReturn(CreateTableResponse.builder().build());
        return DynamoDbStore.builder().client(client).table("tbl").tableWait(tableWait).build();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aNewTableIsUsedAsSoonAsItIsActive() {
        DynamoDbStore store = store(Duration.ofMinutes(2));
        when(client.describeTable(any(Consumer.class)))
                .thenThrow(ResourceNotFoundException.builder().message("no table").build())
                .thenReturn(status(TableStatus.CREATING), status(TableStatus.CREATING), status(TableStatus.ACTIVE));

        long started = System.nanoTime();
        assertThat(store.createTableIfMissing()).isTrue();

        verify(client, times(4)).describeTable(any(Consumer.class));
        verify(client).updateTimeToLive(any(Consumer.class));
        // two polls of a quarter second; the SDK waiter would have slept 20 s after the first
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aTableAnotherProcessIsCreatingIsWaitedFor() {
        DynamoDbStore store = store(Duration.ofMinutes(2));
        when(client.describeTable(any(Consumer.class)))
                .thenReturn(status(TableStatus.CREATING), status(TableStatus.ACTIVE));

        assertThat(store.createTableIfMissing()).isFalse();

        verify(client, times(2)).describeTable(any(Consumer.class));
        verify(client, never()).createTable(any(Consumer.class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aTableThatStaysInCreationEndsInAClearErrorAfterTheWait() {
        DynamoDbStore store = store(Duration.ofMillis(600));
        when(client.describeTable(any(Consumer.class))).thenReturn(status(TableStatus.CREATING));

        assertThatThrownBy(store::createTableIfMissing)
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("DynamoDB table tbl is still CREATING after 600 ms; try again once it is ACTIVE");
        verify(client, never()).updateTimeToLive(any(Consumer.class));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aTableBeingDeletedFailsAtOnce() {
        DynamoDbStore store = store(Duration.ofMinutes(2));
        when(client.describeTable(any(Consumer.class))).thenReturn(status(TableStatus.DELETING));

        assertThatThrownBy(store::createTableIfMissing)
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("DynamoDB table tbl is DELETING, not ACTIVE; it cannot be used");
        verify(client, times(2)).describeTable(any(Consumer.class));
    }
}
