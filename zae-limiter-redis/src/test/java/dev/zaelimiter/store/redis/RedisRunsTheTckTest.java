package dev.zaelimiter.store.redis;

import dev.zaelimiter.contract.TckContracts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis store runs every contract class of the store TCK, each in a {@code Redis*ContractTest} on one server and
 * in a {@code RedisCluster*ContractTest} on a cluster of three masters.
 */
class RedisRunsTheTckTest {

    @Test
    void everyContractClassHasARedisRun() throws Exception {
        assertThat(TckContracts.names()).hasSizeGreaterThanOrEqualTo(15);
        assertThat(TckContracts.notRunBy("dev.zaelimiter.store.redis.Redis"))
                .as("contract classes without a Redis*ContractTest").isEmpty();
    }

    @Test
    void everyContractClassHasAClusterRun() throws Exception {
        assertThat(TckContracts.notRunBy("dev.zaelimiter.store.redis.RedisCluster"))
                .as("contract classes without a RedisCluster*ContractTest").isEmpty();
    }
}
