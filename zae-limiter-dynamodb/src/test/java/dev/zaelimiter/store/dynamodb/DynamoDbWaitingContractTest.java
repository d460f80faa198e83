package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.WaitingContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbWaitingContractTest extends WaitingContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
