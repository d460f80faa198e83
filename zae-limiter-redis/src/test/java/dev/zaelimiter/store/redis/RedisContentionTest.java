package dev.zaelimiter.store.redis;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three stores on one prefix (three processes), four threads each, on one bucket and on a cascade: exactly the
 * capacity is admitted, a decision another process beat goes round again rather than failing, and once every
 * process has seen the quota spent, its refusals cost at most 0.1 commands each; and two processes taking turns on
 * a busy bucket, each admission one command, with the same answers as the in-memory store.
 */
class RedisContentionTest {

    private static final int STORES = 3;
    private static final int THREADS = 4;
    private static final int CALLS = 60;

    private final MutableClock clock = MutableClock.start();

    @Test
    void processesRacingForOneBucketAdmitExactlyItsCapacity() throws Exception {
        assertThat(race("user-1", 250)).isEqualTo(250);
    }

    @Test
    void childrenRacingForTheirParentAdmitExactlyTheParentsCapacity() throws Exception {
        assertThat(race(null, 250)).isEqualTo(250);
    }

    @Test
    void twoProcessesTakingTurnsOnABusyBucketPayOneCommandPerAdmission() {
        RateLimiter memory = limiter(new InMemoryStore());
        try (RedisStore first = RedisTestStores.newStore(clock);
             RedisStore second = RedisTestStores.builder(clock).prefix(first.prefix()).build()) {
            List<RateLimiter> processes = List.of(limiter(first), limiter(second));
            List<Limit> limits = List.of(Limit.perSecond("rps", 1000),
                    Limit.custom("tpm", 100_000, 7, Duration.ofMillis(3)));
            for (RateLimiter limiter : List.of(processes.get(0), memory)) {
                limiter.admin().setResourceDefaults("api", limits);
            }
            for (RateLimiter limiter : processes) {
                limiter.available("user-1", "api");                                 // configuration loaded
            }
            long before = first.commands() + second.commands();
            for (int call = 0; call < 200; call++) {
                Map<String, Long> amounts = Map.of("rps", 3L, "tpm", 50L + call);
                var admitted = processes.get(call % 2).acquire("user-1", "api", amounts);
                var expected = memory.acquire("user-1", "api", amounts);
                assertThat(admitted.statuses()).isEqualTo(expected.statuses());
                admitted.close();
                expected.close();
                clock.advance(Duration.ofMillis(1 + call % 3));
            }
            assertThat(first.commands() + second.commands() - before).as("one command per admission").isEqualTo(200);
            assertThat(processes.get(1).available("user-1", "api")).isEqualTo(memory.available("user-1", "api"));
        }
    }

    /** Calls admitted when each thread calls {@link #CALLS} times as {@code entity} (null: a child of one parent). */
    private int race(String entity, long capacity) throws Exception {
        List<RedisStore> stores = new ArrayList<>();
        RedisStore first = RedisTestStores.newStore(clock);
        stores.add(first);
        for (int i = 1; i < STORES; i++) {
            stores.add(RedisTestStores.builder(clock).prefix(first.prefix()).build());
        }
        RateLimiter admin = limiter(first);
        admin.admin().setResourceDefaults("api", List.of(Limit.quota("calls", capacity, "0 0 1 1 *", ZoneOffset.UTC)));
        admin.admin().createEntity(Entity.of("org"));
        for (int t = 0; t < STORES * THREADS; t++) {
            admin.admin().createEntity(new Entity("child-" + t, null, "org", true));
        }
        AtomicInteger admitted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(STORES * THREADS);
        try {
            List<RateLimiter> limiters = new ArrayList<>();
            for (int t = 0; t < STORES * THREADS; t++) {
                limiters.add(limiter(stores.get(t % STORES)));
            }
            call(pool, limiters, entity, admitted);
            long before = stores.stream().mapToLong(RedisStore::commands).sum();
            call(pool, limiters, entity, admitted);
            long spent = stores.stream().mapToLong(RedisStore::commands).sum() - before;
            assertThat((double) spent / (STORES * THREADS * CALLS)).as("commands per call refused at saturation")
                    .isLessThanOrEqualTo(0.1);
        } finally {
            pool.shutdown();
            stores.forEach(RedisStore::close);
        }
        return admitted.get();
    }

    /** Each limiter's thread calls {@link #CALLS} times as {@code entity} (null: a child of its own). */
    private static void call(ExecutorService pool, List<RateLimiter> limiters, String entity, AtomicInteger admitted)
            throws Exception {
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < limiters.size(); t++) {
            RateLimiter limiter = limiters.get(t);
            String caller = entity != null ? entity : "child-" + t;
            running.add(pool.submit(() -> {
                for (int c = 0; c < CALLS; c++) {
                    try {
                        limiter.acquire(caller, "api", Map.of("calls", 1L)).close();
                        admitted.incrementAndGet();
                    } catch (RateLimitExceededException refused) {
                        // the quota is spent
                    }
                }
            }));
        }
        for (Future<?> f : running) {
            f.get();
        }
    }

    private RateLimiter limiter(LimiterStore store) {
        return RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO).build();
    }
}
