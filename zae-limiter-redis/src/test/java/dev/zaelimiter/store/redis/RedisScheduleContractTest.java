package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ScheduleContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ScheduleContract} on a real Redis server. */
class RedisScheduleContractTest extends ScheduleContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
