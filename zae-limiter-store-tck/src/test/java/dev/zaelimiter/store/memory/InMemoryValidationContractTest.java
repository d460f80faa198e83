package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.ValidationContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryValidationContractTest extends ValidationContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
