package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.NumericRangeContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link NumericRangeContract} on a real Redis server. */
class RedisNumericRangeContractTest extends NumericRangeContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
