package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.CorrectionsContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbCorrectionsContractTest extends CorrectionsContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
