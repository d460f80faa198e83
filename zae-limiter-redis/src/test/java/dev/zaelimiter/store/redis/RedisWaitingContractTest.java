package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.WaitingContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link WaitingContract} on a real Redis server. */
class RedisWaitingContractTest extends WaitingContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }

    @Override
    protected boolean booksAhead() {
        return false;
    }
}
