package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ConcurrencyLimitContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ConcurrencyLimitContract} on a real Redis server. */
class RedisConcurrencyLimitContractTest extends ConcurrencyLimitContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
