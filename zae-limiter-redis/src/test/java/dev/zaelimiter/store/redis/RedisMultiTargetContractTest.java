package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.MultiTargetContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link MultiTargetContract} on a real Redis server. */
class RedisMultiTargetContractTest extends MultiTargetContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
