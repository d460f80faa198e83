package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.ConcurrencyLimitContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryConcurrencyLimitContractTest extends ConcurrencyLimitContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
