package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.BookingContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryBookingContractTest extends BookingContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
