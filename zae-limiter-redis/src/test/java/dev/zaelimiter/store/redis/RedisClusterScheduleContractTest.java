package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ScheduleContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ScheduleContract} on a Redis Cluster of three masters. */
class RedisClusterScheduleContractTest extends ScheduleContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }
}
