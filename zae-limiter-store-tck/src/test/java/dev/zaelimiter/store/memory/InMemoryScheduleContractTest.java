package dev.zaelimiter.store.memory;

import dev.zaelimiter.contract.ScheduleContract;
import dev.zaelimiter.store.LimiterStore;

class InMemoryScheduleContractTest extends ScheduleContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();
    }
}
