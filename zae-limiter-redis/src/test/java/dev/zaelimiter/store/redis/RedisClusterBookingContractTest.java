package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.BookingContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link BookingContract} on a Redis Cluster of three masters: it books nothing (the interface's default). */
class RedisClusterBookingContractTest extends BookingContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newClusterStore(clock);
    }

    @Override
    protected boolean booksAhead() {
        return false;
    }
}
