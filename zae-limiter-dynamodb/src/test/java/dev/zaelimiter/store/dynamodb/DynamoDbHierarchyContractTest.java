package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.HierarchyContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbHierarchyContractTest extends HierarchyContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
