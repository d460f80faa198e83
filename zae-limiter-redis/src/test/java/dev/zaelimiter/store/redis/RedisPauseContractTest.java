package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.PauseContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link PauseContract} on a real Redis server. */
class RedisPauseContractTest extends PauseContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
