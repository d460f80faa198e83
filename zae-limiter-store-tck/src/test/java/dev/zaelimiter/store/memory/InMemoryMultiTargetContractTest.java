package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.MultiTargetContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryMultiTargetContractTest extends MultiTargetContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
