package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.PauseContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbPauseContractTest extends PauseContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
