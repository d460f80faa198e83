package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.MultiTargetContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link MultiTargetContract} on a Redis Cluster of three masters. */
class RedisClusterMultiTargetContractTest extends MultiTargetContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
