package dev.zaelimiter.store.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stores for tests: all on the shared test server (or the shared test cluster), each under a prefix no other store
 * uses.
 */
public final class RedisTestStores {

    /**
     * The command deadline of test stores: long, so that a test on a loaded machine never fails because one command
     * was slow.
     */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisClusterClient clusterClient;

    private RedisTestStores() {
    }

    /** One client for the tests of this JVM, on the shared server. */
    public static synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create(RedisServer.get().uri());
            client.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        }
        return client;
    }

    /** A connection of the tests' own to the shared server, to look at what the stores wrote. */
    public static synchronized StatefulRedisConnection<String, String> connection() {
        if (connection == null) {
            connection = client().connect();
        }
        return connection;
    }

    /** A store on the shared server, under a prefix no other store uses. */
    public static RedisStore newStore(Clock clock) {
        return builder(clock).build();
    }

    /** One cluster client for the tests of this JVM, on the shared {@link RedisCluster}. */
    public static synchronized RedisClusterClient clusterClient() {
        if (clusterClient == null) {
            clusterClient = RedisCluster.get().newClient();
            clusterClient.setOptions(ClusterClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        }
        return clusterClient;
    }

    /** A store on the shared test cluster, under a prefix no other store uses. */
    public static RedisStore newClusterStore(Clock clock) {
        return clusterBuilder(clock).build();
    }

    public static RedisStore.Builder clusterBuilder(Clock clock) {
        return RedisStore.builder().clusterClient(clusterClient()).requestTimeout(REQUEST_TIMEOUT)
                .prefix("c" + PREFIXES.incrementAndGet()).clock(clock);
    }

    public static RedisStore.Builder builder(Clock clock) {
        return RedisStore.builder().client(client()).requestTimeout(REQUEST_TIMEOUT)
                .prefix("t" + PREFIXES.incrementAndGet()).clock(clock);
    }
}
