package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.SizeLimitsContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link SizeLimitsContract} on a real Redis server. */
class RedisSizeLimitsContractTest extends SizeLimitsContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
