package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.StoreUnavailableException;

/**
 * DynamoDB answered that the store's table does not exist: it was deleted under the running application, or never
 * created in this account and region. DynamoDB itself is reachable. As a {@link StoreUnavailableException}, each call
 * meets the unavailability policy (and counts towards the circuit breaker) as in an outage, but the message, and
 * {@link #table()}, name the table, so that nobody goes looking for a network fault.
 */
public class TableNotFoundException extends StoreUnavailableException {

    private final String table;

    public TableNotFoundException(String table, String what, Throwable cause) {
        super("DynamoDB store could not " + what + ": table '" + table + "' does not exist (deleted, or never"
                + " created in this account and region); DynamoDB itself answered. Create the table again"
                + " (DynamoDbStore.createTableIfMissing) or point the store at the right table", cause);
        this.table = table;
    }

    /** The table that does not exist. */
    public String table() {
        return table;
    }
}
