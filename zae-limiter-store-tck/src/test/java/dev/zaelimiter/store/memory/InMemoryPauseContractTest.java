package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.PauseContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryPauseContractTest extends PauseContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
