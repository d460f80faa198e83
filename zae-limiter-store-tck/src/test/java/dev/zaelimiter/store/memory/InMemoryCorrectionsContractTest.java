package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.CorrectionsContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryCorrectionsContractTest extends CorrectionsContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
