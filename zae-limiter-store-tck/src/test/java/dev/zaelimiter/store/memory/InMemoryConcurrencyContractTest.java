package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.ConcurrencyContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryConcurrencyContractTest extends ConcurrencyContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
