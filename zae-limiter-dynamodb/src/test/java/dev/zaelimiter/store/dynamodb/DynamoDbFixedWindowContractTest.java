package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.FixedWindowContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbFixedWindowContractTest extends FixedWindowContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
