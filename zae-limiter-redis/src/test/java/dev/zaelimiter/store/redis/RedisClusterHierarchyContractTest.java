package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.HierarchyContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link HierarchyContract} on a Redis Cluster of three masters. */
class RedisClusterHierarchyContractTest extends HierarchyContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
