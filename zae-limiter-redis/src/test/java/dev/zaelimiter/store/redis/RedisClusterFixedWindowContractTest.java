package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.FixedWindowContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link FixedWindowContract} on a Redis Cluster of three masters. */
class RedisClusterFixedWindowContractTest extends FixedWindowContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
