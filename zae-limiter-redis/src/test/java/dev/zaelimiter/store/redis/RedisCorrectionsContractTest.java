package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.CorrectionsContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link CorrectionsContract} on a real Redis server. */
class RedisCorrectionsContractTest extends CorrectionsContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }
}
