package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store through Redis Sentinel ({@code redis-sentinel://}): a master, a replica and one sentinel, each a
 * {@code redis-server} of the test's own, stopped by process id. Decisions continue after a failover to the
 * replica, on the balances it had received.
 */
class RedisSentinelTest {

    private static final String MASTER = "limits";

    private final MutableClock clock = MutableClock.start();
    private final List<RedisServer> servers = new ArrayList<>();
    private RedisServer master;
    private RedisServer replica;
    private RedisServer sentinel;

    @BeforeEach
    void start() throws IOException {
        Path dir = Files.createTempDirectory("redis-sentinel-");       // where a full sync's RDB file goes
        dir.toFile().deleteOnExit();
        master = started(RedisServer.start(RedisServer.freePort(), List.of(), dir));
        replica = started(RedisServer.start(RedisServer.freePort(), List.of("--replicaof", "127.0.0.1",
                Integer.toString(master.port())), dir));
        Path config = dir.resolve("sentinel.conf");
        Files.writeString(config, String.join("\n",
                "sentinel monitor " + MASTER + " 127.0.0.1 " + master.port() + " 1",
                "sentinel down-after-milliseconds " + MASTER + " 1000",
                "sentinel failover-timeout " + MASTER + " 5000", ""));
        config.toFile().deleteOnExit();
        sentinel = started(RedisServer.start(RedisServer.freePort(), List.of(config.toString(), "--sentinel"),
                dir));
        await("the replica is in sync", () -> info(replica, "replication").contains("master_link_status:up"));
        await("the sentinel knows the replica", () -> {
            try {
                return sentinel.command("SENTINEL", "REPLICAS", MASTER).startsWith("*1");
            } catch (IOException e) {
                return false;
            }
        });
    }

    private RedisServer started(RedisServer server) {
        servers.add(server);
        return server;
    }

    @AfterEach
    void stop() {
        servers.forEach(RedisServer::close);
    }

    @Test
    void decisionsContinueAfterAFailoverOnTheBalancesTheReplicaReceived() throws Exception {
        try (RedisStore store = RedisStore.builder().uri("redis-sentinel://127.0.0.1:" + sentinel.port() + "#"
                + MASTER).prefix("s").clock(clock).requestTimeout(RedisTestStores.REQUEST_TIMEOUT).build()) {
            RateLimiter limiter = RateLimiter.builder().store(store).clock(clock)
                    .usageFlushInterval(Duration.ZERO).build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100)));
            for (int i = 0; i < 10; i++) {
                limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            }
            await("the replica has the bucket", () -> {
                try {
                    return !replica.command("EXISTS", "s#E#user-1#B#api").equals(":0");
                } catch (IOException e) {
                    return false;
                }
            });

            assertThat(sentinel.command("SENTINEL", "FAILOVER", MASTER)).isEqualTo("+OK");
            await("the replica is the master", () -> info(replica, "replication").contains("role:master"));

            long admitted = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (admitted < 5 && System.nanoTime() < deadline) {
                try {
                    limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
                    admitted++;
                } catch (StoreUnavailableException reconnecting) {
                    Thread.sleep(50);                       // Lettuce finds the new master through the sentinel
                }
            }
            assertThat(admitted).as("decisions after the failover").isEqualTo(5);
            assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 85L);
            assertThat(replica.command("EXISTS", "s#E#user-1#B#api")).isEqualTo(":1");
        }
    }

    private static String info(RedisServer server, String section) {
        try {
            return server.info(section);
        } catch (IOException e) {
            return "";
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }
}
