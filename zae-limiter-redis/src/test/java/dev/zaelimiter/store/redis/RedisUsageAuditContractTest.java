package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.UsageAuditContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link UsageAuditContract} on a real Redis server. */
class RedisUsageAuditContractTest extends UsageAuditContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
