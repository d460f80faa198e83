package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.SoftAndBypassContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link SoftAndBypassContract} on a real Redis server. */
class RedisSoftAndBypassContractTest extends SoftAndBypassContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
