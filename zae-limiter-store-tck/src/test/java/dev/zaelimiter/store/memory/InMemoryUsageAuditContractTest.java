package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.UsageAuditContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryUsageAuditContractTest extends UsageAuditContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
