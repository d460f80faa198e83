package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.UsageAuditContract;
import dev.zaelimiter.store.LimiterStore;

class DynamoDbUsageAuditContractTest extends UsageAuditContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }
}
