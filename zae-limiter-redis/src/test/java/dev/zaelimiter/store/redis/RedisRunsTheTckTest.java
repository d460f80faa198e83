package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.BucketContract;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The Redis store runs every contract class of the store TCK, each in a {@code Redis*ContractTest}. */
class RedisRunsTheTckTest {

    @Test
    void everyContractClassHasARedisRun() throws Exception {
        Path tck = Path.of(BucketContract.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> contracts = new ArrayList<>();
        if (Files.isDirectory(tck)) {
            try (Stream<Path> files = Files.list(tck.resolve("dev/zaelimiter/contract"))) {
                files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith("Contract.class"))
                        .forEach(n -> contracts.add(n.substring(0, n.length() - ".class".length())));
            }
        } else {
            try (JarFile jar = new JarFile(tck.toFile())) {
                jar.stream().map(JarEntry::getName)
                        .filter(n -> n.startsWith("dev/zaelimiter/contract/") && n.endsWith("Contract.class"))
                        .forEach(n -> contracts.add(n.substring("dev/zaelimiter/contract/".length(),
                                n.length() - ".class".length())));
            }
        }
        assertThat(contracts).hasSizeGreaterThanOrEqualTo(15);
        List<String> notRun = new ArrayList<>();
        for (String contract : contracts) {
            Class<?> type = Class.forName("dev.zaelimiter.contract." + contract);
            try {
                Class<?> run = Class.forName("dev.zaelimiter.store.redis.Redis" + contract + "Test");
                assertThat(type.isAssignableFrom(run)).as(run.getName()).isTrue();
            } catch (ClassNotFoundException e) {
                notRun.add(contract);
            }
        }
        assertThat(notRun).as("contract classes without a Redis*ContractTest").isEmpty();
    }
}
