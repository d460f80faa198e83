package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.WaitingContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryWaitingContractTest extends WaitingContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
