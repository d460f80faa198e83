package dev.zaelimiter.store.dynamodb;

/** How {@link DynamoDbStore} debits a child and its parent together. */
public enum CascadeWrite {
    /** Two writes in parallel; when one is refused, the other is refunded exactly once. The default. */
    COMPENSATING,
    /** One {@code TransactWriteItems} call: both debits or neither, at twice the write cost. */
    TRANSACTIONAL
}
