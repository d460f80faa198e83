package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.StoreUnavailableException;

/** An item of the table holds something this store never writes; the store cannot decide from it. */
final class CorruptItemException extends StoreUnavailableException {

    CorruptItemException(String message) {
        super("DynamoDB store found a corrupt item: " + message, null);
    }
}
