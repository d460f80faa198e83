package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.SoftAndBypassContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbSoftAndBypassContractTest extends SoftAndBypassContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
