package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.PauseContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link PauseContract} on a Redis Cluster of three masters. */
class RedisClusterPauseContractTest extends PauseContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
