package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.HierarchyContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link HierarchyContract} on a real Redis server. */
class RedisHierarchyContractTest extends HierarchyContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
