package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ConcurrencyContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ConcurrencyContract} on a real Redis server. */
class RedisConcurrencyContractTest extends ConcurrencyContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
