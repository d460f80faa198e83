package dev.zaelimiter.docs;

import dev.zaelimiter.contract.BucketContract;
import dev.zaelimiter.contract.StoreContractSupport;
import dev.zaelimiter.contract.TckContracts;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Modifier;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example of {@code docs/store-tck.md} (the class below, which runs as a test of its own), and the check that the
 * in-memory store runs every contract class of the TCK, as that page tells a store implementer to.
 */
class StoreTckDocsExamplesTest {

    @Test
    void theInMemoryStoreRunsEveryContractClass() throws Exception {
        List<String> contracts = TckContracts.names();
        assertThat(contracts).hasSizeGreaterThanOrEqualTo(15);
        for (String contract : contracts) {
            Class<?> type = Class.forName("dev.zaelimiter.contract." + contract);
            assertThat(StoreContractSupport.class.isAssignableFrom(type)).as(contract).isTrue();
            assertThat(Modifier.isAbstract(type.getModifiers())).as(contract).isTrue();
        }
        assertThat(TckContracts.notRunBy("dev.zaelimiter.store.memory.InMemory"))
                .as("contract classes without an InMemory*ContractTest").isEmpty();
    }
}

// tag::storeTck[]
class MyStoreBucketContractTest extends BucketContract {

    @Override
    protected LimiterStore createStore() {
        return new InMemoryStore();         // a new, empty store of yours; closed after each test
    }
}
// end::storeTck[]
