package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ConcurrencyContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ConcurrencyContract} on a Redis Cluster of three masters. */
class RedisClusterConcurrencyContractTest extends ConcurrencyContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
