package dev.zaelimiter.store.redis;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A node of a cluster that stops answering ({@code SIGSTOP}): calls on the buckets it holds fail as unavailable
 * within the deadline while calls on other nodes' buckets go on (a call on both gives back what the other slot
 * took); with the node that holds the configuration's slot
 * stopped, decisions are still answered, once the version read with each has waited out its deadline.
 */
class RedisClusterUnavailableTest {

    private static final Duration DEADLINE = Duration.ofSeconds(1);
    private static final String PREFIX = "u";

    private final MutableClock clock = MutableClock.start();

    @Test
    void aStoppedNodeFailsOnlyTheCallsOnItsSlotsAndTheConfigurationNodeSlowsEveryCall() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3);
                RedisStore store = RedisStore.builder().uri("redis-cluster://" + cluster.nodeUri(0).substring(8))
                        .prefix(PREFIX).requestTimeout(DEADLINE).clock(clock).build()) {
            int config = node(cluster, "{" + PREFIX + "}");
            String onStopped = entityOn(cluster, (config + 1) % 3);
            String onOther = entityOn(cluster, (config + 2) % 3);
            RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).noCircuitBreaker()
                    .usageFlushInterval(Duration.ZERO).build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
            for (String entity : List.of(onStopped, onOther)) {
                limiter.acquire(entity, "api", Map.of("rpm", 1L)).close();
            }

            long stopped = cluster.nodes().get((config + 1) % 3).pid();
            signal("STOP", stopped);
            try {
                long started = System.nanoTime();
                assertThatThrownBy(() -> limiter.acquire(onStopped, "api", Map.of("rpm", 1L)))
                        .isInstanceOf(StoreUnavailableException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(DEADLINE.multipliedBy(3));
                limiter.acquire(onOther, "api", Map.of("rpm", 1L)).close();

                AcquireRequest both = AcquireRequest.of(onOther, "api").consume("rpm", 1)
                        .also(onStopped, "api", Map.of("rpm", 1L));
                assertThatThrownBy(() -> limiter.acquire(both)).isInstanceOf(StoreUnavailableException.class);
                assertThat(limiter.available(onOther, "api")).as("the slot that answered is given back")
                        .containsEntry("rpm", 8L);
            } finally {
                signal("CONT", stopped);
            }
            limiter.acquire(onStopped, "api", Map.of("rpm", 1L)).close();
            assertThat(limiter.available(onStopped, "api").get("rpm"))
                    .as("the calls that timed out may have landed once the node went on").isBetween(6L, 8L);

            long configuration = cluster.nodes().get(config).pid();
            signal("STOP", configuration);
            try {
                long started = System.nanoTime();
                limiter.acquire(onOther, "api", Map.of("rpm", 1L)).close();
                assertThat(Duration.ofNanos(System.nanoTime() - started))
                        .as("the version read waits out its deadline; the decision stands")
                        .isGreaterThanOrEqualTo(DEADLINE).isLessThan(DEADLINE.multipliedBy(3));
            } finally {
                signal("CONT", configuration);
            }
            limiter.acquire(onOther, "api", Map.of("rpm", 1L)).close();
            assertThat(limiter.available(onOther, "api")).containsEntry("rpm", 6L);
        }
    }

    /** The node (by index) that serves {@code key}'s slot: the cluster splits the slots in equal ranges. */
    private static int node(RedisCluster cluster, String key) {
        return SlotHash.getSlot(key) * cluster.nodes().size() / SlotHash.SLOT_COUNT;
    }

    /** An entity id whose buckets lie on node {@code index}. */
    private static String entityOn(RedisCluster cluster, int index) {
        return IntStream.range(0, 1000).mapToObj(i -> "user-" + i)
                .filter(id -> node(cluster, "{" + id + "}") == index).findFirst().orElseThrow();
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }
}
