package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.SizeLimitsContract;
import dev.zaelimiter.store.LimiterStore;

class InMemorySizeLimitsContractTest extends SizeLimitsContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
