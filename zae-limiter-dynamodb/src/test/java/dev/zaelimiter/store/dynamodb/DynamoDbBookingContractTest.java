package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.BookingContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbBookingContractTest extends BookingContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
