package dev.zaelimiter.docs;

import dev.zaelimiter.contract.BucketContract;
import dev.zaelimiter.contract.StoreContractSupport;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example of {@code docs/store-tck.md} (the class below, which runs as a test of its own), and the check that the
 * in-memory store runs every contract class of the TCK, as that page tells a store implementer to.
 */
class StoreTckDocsExamplesTest {

    @Test
    void theInMemoryStoreRunsEveryContractClass() throws Exception {
        Path classes = Path.of(BucketContract.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> contracts = new ArrayList<>();
        try (Stream<Path> files = Files.list(classes.resolve("dev/zaelimiter/contract"))) {
            files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith("Contract.class"))
                    .forEach(n -> contracts.add(n.substring(0, n.length() - ".class".length())));
        }
        assertThat(contracts).hasSizeGreaterThanOrEqualTo(15);
        List<String> notRun = new ArrayList<>();
        for (String contract : contracts) {
            Class<?> type = Class.forName("dev.zaelimiter.contract." + contract);
            assertThat(StoreContractSupport.class.isAssignableFrom(type)).as(contract).isTrue();
            assertThat(Modifier.isAbstract(type.getModifiers())).as(contract).isTrue();
            try {
                Class<?> run = Class.forName("dev.zaelimiter.store.memory.InMemory" + contract + "Test");
                assertThat(type.isAssignableFrom(run)).as(run.getName()).isTrue();
            } catch (ClassNotFoundException e) {
                notRun.add(contract);
            }
        }
        assertThat(notRun).as("contract classes without an InMemory*ContractTest").isEmpty();
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
