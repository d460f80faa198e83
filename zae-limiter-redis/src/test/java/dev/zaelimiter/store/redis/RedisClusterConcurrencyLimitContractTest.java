package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ConcurrencyLimitContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ConcurrencyLimitContract} on a Redis Cluster of three masters. */
class RedisClusterConcurrencyLimitContractTest extends ConcurrencyLimitContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
