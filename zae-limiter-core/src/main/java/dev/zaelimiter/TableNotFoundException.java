package dev.zaelimiter;

/**
 * The store answered, but the table it keeps its state in does not exist: deleted under the running application, or
 * never created where the store looks. As a {@link StoreUnavailableException}, each call meets the unavailability
 * policy (and counts towards the circuit breaker) as in an outage, but the message and {@link #table()} name the
 * table, so that nobody goes looking for a network fault.
 */
public class TableNotFoundException extends StoreUnavailableException {

    private final String table;

    /** A missing {@code table}, with the store's own {@code message} (which names it) and the store's failure. */
    public TableNotFoundException(String table, String message, Throwable cause) {
        super(message, cause);
        this.table = table;
    }

    /** The table that does not exist. */
    public String table() {
        return table;
    }
}
