package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.FixedWindowContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryFixedWindowContractTest extends FixedWindowContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
