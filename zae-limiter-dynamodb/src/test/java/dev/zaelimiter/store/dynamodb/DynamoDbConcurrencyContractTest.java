package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.ConcurrencyContract;
import dev.zaelimiter.store.LimiterStore;

/** Eight threads on one bucket through the server; fewer calls than in memory, since each is a round trip. */
class DynamoDbConcurrencyContractTest extends ConcurrencyContract {

    @Override
    protected LimiterStore createStore() {
        return DynamoDbTestStores.newStore(getClass(), clock);
    }

    @Override
    protected int callsPerThread() {
        return 200;
    }
}
