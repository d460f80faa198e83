package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.BucketContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link BucketContract} on a real Redis server. */
class RedisBucketContractTest extends BucketContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
