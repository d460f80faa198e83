package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.BookingContract;
import dev.zaelimiter.store.LimiterStore;

/** The store TCK's {@link BookingContract} on a real Redis server: it books nothing (the interface's default). */
class RedisBookingContractTest extends BookingContract {

    @Override
    protected LimiterStore createStore() {
        return RedisTestStores.newStore(clock);
    }

    @Override
    protected boolean booksAhead() {
        return false;
    }
}
