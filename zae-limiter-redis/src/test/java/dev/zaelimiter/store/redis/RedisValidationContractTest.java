package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.ValidationContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link ValidationContract} on a real Redis server. */
class RedisValidationContractTest extends ValidationContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
