package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.ConcurrencyLimitContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbConcurrencyLimitContractTest extends ConcurrencyLimitContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }

    @Override
    protected int callsPerThread() {
        return 40;
    }
}
