package dev.zaelimiter.autoconfigure;

/**
 * The DynamoDB table named by {@code zae.limiter.dynamodb.table} does not exist and
 * {@code zae.limiter.dynamodb.create-table} is off. Raised at startup, so that a misspelled table or a wrong region
 * stops the application instead of failing (or, with {@code on-unavailable=allow}, silently admitting) every call.
 */
public class MissingTableException extends RuntimeException {

    /** The property that names the table. */
    public static final String TABLE_PROPERTY = "zae.limiter.dynamodb.table";

    /** The property that lets the application create the table. */
    public static final String CREATE_PROPERTY = "zae.limiter.dynamodb.create-table";

    private final String table;

    public MissingTableException(String table) {
        super("DynamoDB table '" + table + "' (" + TABLE_PROPERTY + ") does not exist and " + CREATE_PROPERTY
                + " is false");
        this.table = table;
    }

    /** The table that was not found. */
    public String table() {
        return table;
    }
}
