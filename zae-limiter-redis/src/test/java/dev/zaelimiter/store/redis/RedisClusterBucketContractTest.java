package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.BucketContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link BucketContract} on a Redis Cluster of three masters. */
class RedisClusterBucketContractTest extends BucketContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
