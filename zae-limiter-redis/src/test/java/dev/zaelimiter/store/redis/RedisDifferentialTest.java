package dev.zaelimiter.store.redis;

import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.ScheduleEntry;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random histories on the in-memory store and on Redis, each in its own limiter on one clock, with every
 * answer compared: decisions and every limit's status, balances and consumption counters, after adjustments and
 * rollbacks into debt and back, across configuration changes (every kind of limit, soft or hard, scheduled), clock
 * steps forwards (up to a year, past buckets' lives) and back (up to ten minutes), concurrency limits, an entity
 * cascading to its parent (every third seed), and reopening the Redis store (a process that knows nothing of the
 * buckets), with one Redis process or two taking turns at random; 120 histories each on one Redis and 60 with one
 * process on the test cluster. One process always finds its buckets as it wrote them, so that the script would make
 * the writes it sends: in every even-numbered one-process history the store sends none ({@code withoutShortcuts}),
 * and the script decides every call it can from the buckets as stored, with its own arithmetic. A failing history
 * names its seed and steps; {@code -Dzae.redisdiff.seed=N} replays one.
 *
 * <p>A smaller cousin of {@code zae-limiter-dynamodb}'s {@code DifferentialHistoryTest}: that test's generator is
 * tied to the DynamoDB store's hooks (reservation sweeps, its clock observation), so it is not shared yet.
 */
class RedisDifferentialTest {

    private static final int HISTORIES = Integer.getInteger("zae.redisdiff.histories", 120);
    private static final int CLUSTER_HISTORIES = Integer.getInteger("zae.redisdiff.clusterHistories", 60);
    private static final int STEPS = 40;
    private static final List<String> ENTITIES = List.of("e1", "e2");
    private static final String RESOURCE = "r1";

    @Test
    void bothStoresGiveTheSameAnswers() {
        Long only = Long.getLong("zae.redisdiff.seed");
        for (long seed = only == null ? 1 : only; seed <= (only == null ? HISTORIES : only); seed++) {
            run(seed, 1, RedisTestStores::builder, seed % 2 == 1);
        }
    }

    /**
     * The same histories with two Redis processes on one prefix, each call made by one of them at random, against two
     * limiters on one in-memory store: each decides on buckets the other wrote, in the script or by a write of what it
     * computed. In every other history the second process's clock is up to 9 ms ahead of or behind the first's (so
     * that one decides on buckets written at a later instant than its own), and about half the configuration changes
     * are made by one process only, the other learning it by the version a bucket answer carries (an
     * {@code available} call, not compared, before its next decision).
     */
    @Test
    void twoProcessesGiveTheSameAnswersAsOneStore() {
        Long only = Long.getLong("zae.redisdiff.seed");
        for (long seed = only == null ? 1 : only; seed <= (only == null ? HISTORIES : only); seed++) {
            run(seed, 2, RedisTestStores::builder, true);
        }
    }

    @Test
    void bothStoresGiveTheSameAnswersOnACluster() {
        Long only = Long.getLong("zae.redisdiff.seed");
        for (long seed = only == null ? 1 : only; seed <= (only == null ? CLUSTER_HISTORIES : only); seed++) {
            run(seed, 1, RedisTestStores::clusterBuilder, seed % 2 == 1);
        }
    }

    /** One history; without {@code shortcuts}, the script decides from the buckets as stored, never as sent. */
    private void run(long seed, int processes, Function<java.time.Clock, RedisStore.Builder> stores,
            boolean shortcuts) {
        Function<RedisStore.Builder, RedisStore> open = builder -> {
            RedisStore store = builder.build();
            if (!shortcuts) {
                store.withoutShortcuts();
            }
            return store;
        };
        Random random = new Random(seed);
        List<String> trail = new ArrayList<>();
        MutableClock clock = new MutableClock(Instant.parse("2026-03-02T21:25:00Z").plusSeconds(seed * 7919));
        List<MutableClock> clocks = new ArrayList<>(List.of(clock));
        long skew = processes > 1 && seed % 2 == 0 ? random.nextInt(19) - 9 : 0;
        while (clocks.size() < processes) {
            clocks.add(new MutableClock(clock.instant().plusMillis(skew)));
        }
        InMemoryStore memoryStore = new InMemoryStore();
        RedisStore first = open.apply(stores.apply(clock));
        String prefix = first.prefix();
        Side memory = new Side(java.util.Collections.nCopies(processes, memoryStore), clocks, seed);
        List<LimiterStore> redisStores = new ArrayList<>(List.of(first));
        while (redisStores.size() < processes) {
            redisStores.add(open.apply(stores.apply(clocks.get(redisStores.size())).prefix(prefix)));
        }
        Side redis = new Side(redisStores, clocks, seed);
        if (!shortcuts) {
            trail.add("the script decides from the buckets as stored (withoutShortcuts)");
        }
        if (skew != 0) {
            trail.add("the second process's clock " + skew + " ms off the first's");
        }
        try {
            if (seed % 3 == 0) {
                trail.add("e1 under e2, cascading");
                for (Side side : List.of(memory, redis)) {
                    side.limiters.get(0).admin().createEntity(dev.zaelimiter.Entity.of("e2"));
                    side.limiters.get(0).admin().createEntity(new dev.zaelimiter.Entity("e1", null, "e2", true));
                }
            }
            for (int step = 0; step < STEPS; step++) {
                int kind = random.nextInt(100);
                String entity = ENTITIES.get(random.nextInt(ENTITIES.size()));
                String what;
                Function<Side, Object> action;
                if (kind < 12 || step == 0) {
                    List<Limit> limits = limits(random);
                    int by = processes > 1 && random.nextBoolean() ? random.nextInt(processes) : -1;
                    what = "configure " + limits + (by < 0 ? "" : " by process " + by + " only");
                    action = side -> {
                        if (by < 0) {
                            side.limiters.forEach(limiter -> limiter.admin().setResourceDefaults(RESOURCE, limits));
                        } else {
                            side.limiters.get(by).admin().setResourceDefaults(RESOURCE, limits);
                            for (RateLimiter other : side.limiters) {
                                ENTITIES.forEach(id -> other.available(id, RESOURCE));      // learns the version
                            }
                        }
                        return "ok";
                    };
                } else if (kind < 55) {
                    Map<String, Long> amounts = amounts(random);
                    boolean keep = random.nextBoolean();
                    what = "acquire " + entity + " " + amounts + (keep ? " and keep the lease" : "");
                    action = side -> side.acquire(entity, amounts, keep);
                } else if (kind < 65) {
                    String limit = "l" + random.nextInt(3);
                    long amount = random.nextInt(400) - 100;
                    what = "adjust the last lease's " + limit + " by " + amount;
                    action = side -> side.withLease(lease -> lease.adjust(limit, amount));
                } else if (kind < 70) {
                    what = "roll back the last lease";
                    action = side -> side.withLease(Lease::rollback);
                } else if (kind < 88) {
                    long millis = pick(random, 1, 250, 1_000, 30_000, 3_600_000, 86_400_000, 31_536_000_000L,
                            -600_000, -5_000);
                    what = "advance " + millis + " ms";
                    clocks.forEach(each -> each.advance(Duration.ofMillis(millis)));
                    action = side -> "ok";
                } else if (kind < 91) {
                    what = "available " + entity;
                    action = side -> new TreeMap<>(side.limiter().available(entity, RESOURCE));
                } else if (kind < 95) {
                    what = "inspect " + entity + " (consumption included)";
                    action = side -> side.limiter().inspect(entity, RESOURCE).limits();
                } else {
                    what = "reopen the limiters and the Redis store";
                    memory.reopen(java.util.Collections.nCopies(processes, memoryStore));
                    List<LimiterStore> reopened = new ArrayList<>();
                    for (int p = 0; p < processes; p++) {
                        reopened.add(open.apply(stores.apply(clocks.get(p)).prefix(prefix)));
                    }
                    redis.reopen(reopened);
                    action = side -> "ok";
                }
                trail.add(step + ": " + what);
                Object expected = answer(action, memory);
                Object actual = answer(action, redis);
                assertThat(actual).as("seed %d, %d process(es), steps:%n%s", seed, processes, String.join("\n", trail))
                        .isEqualTo(expected);
            }
        } finally {
            memory.close();
            redis.close();
        }
    }

    private static Object answer(Function<Side, Object> action, Side side) {
        try {
            return action.apply(side);
        } catch (RateLimitExceededException e) {
            return "refused " + e.statuses();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static List<Limit> limits(Random random) {
        List<Limit> limits = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            String name = "l" + i;
            long capacity = pick(random, 1, 5, 100, 1000);
            Limit limit = switch (random.nextInt(8)) {
                case 0 -> Limit.perSecond(name, capacity);
                case 1 -> Limit.custom(name, capacity, 1 + capacity / 3, Duration.ofMinutes(1));
                case 2 -> Limit.quota(name, capacity, "0 0 * * *", ZoneOffset.UTC);
                case 3 -> Limit.sessionQuota(name, capacity, Duration.ofMinutes(10));
                case 4 -> Limit.fixedWindow(name, capacity, Duration.ofSeconds(1));
                case 5 -> Limit.perMinute(name, capacity)
                        .withSchedule(ScheduleEntry.scaled("* 9-17 * * *", 2.0));
                case 6 -> Limit.concurrency(name, Math.min(capacity, 3), Duration.ofMinutes(1));
                default -> Limit.perHour(name, capacity);
            };
            limits.add(random.nextInt(4) == 0 ? limit.soft() : limit);
        }
        return limits;
    }

    private static Map<String, Long> amounts(Random random) {
        Map<String, Long> amounts = new TreeMap<>();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            amounts.put("l" + i, pick(random, 0, 1, 2, 4, 50, 700, 2000));
        }
        return amounts;
    }

    private static long pick(Random random, long... values) {
        return values[random.nextInt(values.length)];
    }

    /**
     * One store's limiters (one per process) and the lease it keeps; each call is made by one of them, chosen by a
     * random of its own so that the histories stay those of one process.
     */
    private static final class Side {
        final List<MutableClock> clocks;
        final Random choice;
        List<LimiterStore> stores;
        List<RateLimiter> limiters;
        Lease lease;
        int last;
        int leaseProcess;

        Side(List<LimiterStore> stores, List<MutableClock> clocks, long seed) {
            this.clocks = clocks;
            this.choice = new Random(~seed);
            this.stores = stores;
            this.limiters = limiters(stores);
        }

        private List<RateLimiter> limiters(List<LimiterStore> on) {
            List<RateLimiter> made = new ArrayList<>();
            for (int p = 0; p < on.size(); p++) {
                made.add(RateLimiter.builder().store(on.get(p)).clock(clocks.get(p)).noCircuitBreaker()
                        .usageFlushInterval(Duration.ZERO).build());
            }
            return made;
        }

        /**
         * The limiter of the process that makes the next call (the same on both sides). A process taking over from
         * another asks Redis before it refuses (it cannot know what the other gave back), as one store would see it.
         */
        RateLimiter limiter() {
            int next = choice.nextInt(limiters.size());
            if (next != last && stores.get(next) instanceof RedisStore redis) {
                redis.expireLocalRefusals();
            }
            last = next;
            return limiters.get(next);
        }

        Object acquire(String entity, Map<String, Long> amounts, boolean keep) {
            Lease taken = limiter().acquire(entity, RESOURCE, amounts);
            List<?> statuses = taken.statuses();
            if (keep) {
                lease = taken;
                leaseProcess = last;
            } else {
                taken.close();
            }
            return "admitted " + statuses;
        }

        Object withLease(java.util.function.Consumer<Lease> change) {
            if (lease == null) {
                return "no lease";
            }
            last = leaseProcess;                                       // the lease's process changes the bucket
            change.accept(lease);
            return "ok";
        }

        void reopen(List<LimiterStore> next) {
            limiters.forEach(RateLimiter::close);
            for (LimiterStore store : stores) {
                if (!next.contains(store)) {
                    store.close();
                }
            }
            stores = next;
            limiters = limiters(next);
            lease = null;
        }

        void close() {
            limiters.forEach(RateLimiter::close);
            stores.stream().distinct().forEach(LimiterStore::close);
        }
    }
}
