package dev.zaelimiter.store.redis;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three stores on one prefix (three processes) on the test cluster, four threads each: children racing for their
 * parent (one slot: their tree's), and multi-target calls racing for a budget in another slot than each caller's own,
 * where one slot may be written while another changed: exactly the capacity is admitted, and no caller keeps a debit
 * for a call that was refused.
 */
class RedisClusterContentionTest {

    private static final int STORES = 3;
    private static final int THREADS = 4;
    private static final int CALLS = 40;

    private final MutableClock clock = MutableClock.start();
    private final List<RedisStore> stores = new ArrayList<>();
    private final List<RateLimiter> limiters = new ArrayList<>();

    @BeforeEach
    void processes() {
        RedisStore first = RedisTestStores.newClusterStore(clock);
        stores.add(first);
        for (int i = 1; i < STORES; i++) {
            stores.add(RedisTestStores.clusterBuilder(clock).prefix(first.prefix()).build());
        }
        for (int t = 0; t < STORES * THREADS; t++) {
            limiters.add(RateLimiter.builder().store(stores.get(t % STORES)).clock(clock)
                    .usageFlushInterval(Duration.ZERO).build());
        }
    }

    @AfterEach
    void close() {
        stores.forEach(RedisStore::close);
    }

    @Test
    void childrenRacingForTheirParentAdmitExactlyTheParentsCapacity() throws Exception {
        RateLimiter admin = limiters.get(0);
        admin.admin().setResourceDefaults("api", List.of(Limit.perDay("calls", 1_000)));
        admin.admin().createEntity(Entity.of("org"));
        admin.admin().setLimits("org", "api", List.of(Limit.perDay("calls", 150)));
        for (int t = 0; t < STORES * THREADS; t++) {
            admin.admin().createEntity(new Entity("child-" + t, null, "org", true));
        }
        int[] admitted = race(t -> AcquireRequest.of("child-" + t, "api").consume("calls", 1));
        assertThat(sum(admitted)).isEqualTo(150);
        for (int t = 0; t < admitted.length; t++) {
            assertThat(1_000 - admin.available("child-" + t, "api").get("calls")).isEqualTo(admitted[t]);
        }
    }

    @Test
    void multiTargetCallsAcrossSlotsAdmitExactlyTheBudgetAndKeepNoRefusedDebit() throws Exception {
        RateLimiter admin = limiters.get(0);
        admin.admin().setResourceDefaults("send", List.of(Limit.perDay("messages", 1_000)));
        admin.admin().setResourceDefaults("smtp", List.of(Limit.perDay("messages", 150)));
        for (int t = 0; t < STORES * THREADS; t++) {
            assertThat(SlotHash.getSlot("{tenant-" + t + "}")).isNotEqualTo(SlotHash.getSlot("{shared}"));
        }
        int[] admitted = race(t -> AcquireRequest.of("tenant-" + t, "send").consume("messages", 1)
                .also("shared", "smtp", Map.of("messages", 1L)));
        assertThat(sum(admitted)).isEqualTo(150);
        assertThat(admin.available("shared", "smtp")).containsEntry("messages", 0L);
        for (int t = 0; t < admitted.length; t++) {
            assertThat(1_000 - admin.available("tenant-" + t, "send").get("messages"))
                    .as("tenant-" + t + " keeps the debits of its admitted calls only").isEqualTo(admitted[t]);
        }
    }

    /** Calls admitted per thread when each calls {@link #CALLS} times with {@code request} of its index. */
    private int[] race(IntFunction<AcquireRequest> request) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(limiters.size());
        try {
            List<Future<Integer>> running = new ArrayList<>();
            for (int t = 0; t < limiters.size(); t++) {
                RateLimiter limiter = limiters.get(t);
                AcquireRequest call = request.apply(t);
                running.add(pool.submit(() -> {
                    int admitted = 0;
                    for (int c = 0; c < CALLS; c++) {
                        try {
                            limiter.acquire(call).close();
                            admitted++;
                        } catch (RateLimitExceededException refused) {
                            // the budget is spent
                        }
                    }
                    return admitted;
                }));
            }
            int[] admitted = new int[running.size()];
            for (int t = 0; t < admitted.length; t++) {
                admitted[t] = running.get(t).get();
            }
            return admitted;
        } finally {
            pool.shutdown();
        }
    }

    private static int sum(int[] counts) {
        int sum = 0;
        for (int count : counts) {
            sum += count;
        }
        return sum;
    }
}
