package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.NumericRangeContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbNumericRangeContractTest extends NumericRangeContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
