package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.FixedWindowContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link FixedWindowContract} on a real Redis server. */
class RedisFixedWindowContractTest extends FixedWindowContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
