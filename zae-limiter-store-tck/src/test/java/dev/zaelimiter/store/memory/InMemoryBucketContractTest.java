package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.BucketContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryBucketContractTest extends BucketContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
