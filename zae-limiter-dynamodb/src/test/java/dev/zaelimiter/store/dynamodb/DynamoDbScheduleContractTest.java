package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.ScheduleContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbScheduleContractTest extends ScheduleContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
