package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.SoftAndBypassContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link SoftAndBypassContract} on a Redis Cluster of three masters. */
class RedisClusterSoftAndBypassContractTest extends SoftAndBypassContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
