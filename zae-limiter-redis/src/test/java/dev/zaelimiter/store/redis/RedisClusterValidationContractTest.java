package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ValidationContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ValidationContract} on a Redis Cluster of three masters. */
class RedisClusterValidationContractTest extends ValidationContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
