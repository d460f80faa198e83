package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.NumericRangeContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link NumericRangeContract} on a Redis Cluster of three masters. */
class RedisClusterNumericRangeContractTest extends NumericRangeContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
