package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.SizeLimitsContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link SizeLimitsContract} on a Redis Cluster of three masters. */
class RedisClusterSizeLimitsContractTest extends SizeLimitsContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
