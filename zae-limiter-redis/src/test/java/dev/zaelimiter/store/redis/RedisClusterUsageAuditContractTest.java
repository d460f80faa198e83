package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.UsageAuditContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link UsageAuditContract} on a Redis Cluster of three masters. */
class RedisClusterUsageAuditContractTest extends UsageAuditContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
