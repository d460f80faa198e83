package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.NumericRangeContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryNumericRangeContractTest extends NumericRangeContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
