package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.BucketContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbBucketContractTest extends BucketContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
