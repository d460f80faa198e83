package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.CorrectionsContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link CorrectionsContract} on a Redis Cluster of three masters. */
class RedisClusterCorrectionsContractTest extends CorrectionsContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
