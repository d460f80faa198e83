package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.WaitingContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link WaitingContract} on a Redis Cluster of three masters. */
class RedisClusterWaitingContractTest extends WaitingContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }

    @Override
    protected boolean booksAhead() {
        return false;
    }
}
