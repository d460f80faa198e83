package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.ValidationContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbValidationContractTest extends ValidationContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
