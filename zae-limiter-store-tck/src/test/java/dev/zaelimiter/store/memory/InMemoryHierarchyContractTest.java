package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.HierarchyContract;
import dev.zaelimiter.store.LimiterStore;

/** The hierarchy and cascade contract on {@link InMemoryStore}. */
class InMemoryHierarchyContractTest extends HierarchyContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
