package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.SoftAndBypassContract;
import dev.zaelimiter.store.LimiterStore;

/** The soft limit and disabled mode contract on {@link InMemoryStore}. */
class InMemorySoftAndBypassContractTest extends SoftAndBypassContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
