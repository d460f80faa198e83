package dev.zaelimiter.store.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Stores for tests: all on the shared test server, each under a prefix no other store uses. */
public final class RedisTestStores {

    /**
     * The command deadline of test stores: long, so that a test on a loaded machine never fails because one command
     * was slow.
     */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

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

    public static RedisStore.Builder builder(Clock clock) {
        return RedisStore.builder().client(client()).requestTimeout(REQUEST_TIMEOUT)
                .prefix("t" + PREFIXES.incrementAndGet()).clock(clock);
    }
}
