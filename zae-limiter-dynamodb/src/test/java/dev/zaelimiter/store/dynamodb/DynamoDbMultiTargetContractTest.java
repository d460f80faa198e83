package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.MultiTargetContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbMultiTargetContractTest extends MultiTargetContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
