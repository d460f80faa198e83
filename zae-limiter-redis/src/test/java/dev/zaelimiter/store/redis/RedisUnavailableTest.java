package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Redis that refuses connections, stops answering ({@code SIGSTOP}) or dies gives {@link StoreUnavailableException}
 * within the command deadline, and the store works again once Redis is back.
 */
class RedisUnavailableTest {

    private static final Duration DEADLINE = Duration.ofMillis(300);
    private static final Duration TWO_DEADLINES_AND_SOME = DEADLINE.multipliedBy(2).plusMillis(600);

    private final MutableClock clock = MutableClock.start();

    @Test
    void aRefusedConnectionIsUnavailableAtOnce() {
        RedisServer server = RedisServer.start();
        String uri = server.uri();
        server.close();
        try (RedisStore store = RedisStore.builder().uri(uri).requestTimeout(DEADLINE).clock(clock).build()) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> store.getLevel(dev.zaelimiter.store.ConfigScope.system()))
                    .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("127.0.0.1:");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aStoppedServerTimesOutWithinTheDeadlineAndAContinuedOneAnswersAgain() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisStore store = RedisStore.builder().uri(server.uri()).requestTimeout(DEADLINE).clock(clock)
                        .build()) {
            RateLimiter limiter = RateLimiter.builder().store(store).clock(clock)
                    .usageFlushInterval(Duration.ZERO).build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();

            signal("STOP", server.pid());
            try {
                long started = System.nanoTime();
                assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                        .isInstanceOf(StoreUnavailableException.class);
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                assertThat(took).isGreaterThanOrEqualTo(DEADLINE).isLessThan(Duration.ofSeconds(5));
                assertThat(store.timeouts()).isEqualTo(1);
            } finally {
                signal("CONT", server.pid());
            }
            clock.advance(Duration.ofSeconds(5));                   // past the circuit breaker's cool-down
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            assertThat(limiter.available("user-1", "api").get("rpm")).isBetween(7L, 9L);
        }
    }

    @Test
    void manyThreadsOnOneBucketOfAStoppedServerEachFailWithinTwoDeadlines() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisStore store = RedisStore.builder().uri(server.uri()).requestTimeout(DEADLINE).clock(clock)
                        .build()) {
            BucketDebit debit = new BucketDebit(new BucketKey("user-1", "api"), List.of(Limit.perMinute("rpm", 10)),
                    Map.of("rpm", 1000L), false, false);
            store.tryAcquire(List.of(debit), clock.millis());
            signal("STOP", server.pid());
            try {
                assertThat(eachCallFromThreads(20, () -> store.tryAcquire(List.of(debit), clock.millis())))
                        .allSatisfy(took -> assertThat(took).isLessThan(TWO_DEADLINES_AND_SOME));
            } finally {
                signal("CONT", server.pid());
            }
        }
    }

    @Test
    void manyThreadsWaitingForTheFirstConnectionToAStoppedServerFailTogether() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisStore store = RedisStore.builder().uri(server.uri()).requestTimeout(DEADLINE).clock(clock)
                        .build()) {
            signal("STOP", server.pid());
            try {
                assertThat(eachCallFromThreads(20, () -> store.getLevel(ConfigScope.system())))
                        .allSatisfy(took -> assertThat(took).isLessThan(TWO_DEADLINES_AND_SOME));
            } finally {
                signal("CONT", server.pid());
            }
        }
    }

    @Test
    void aClientShutDownUnderTheStoreIsUnavailable() {
        try (RedisServer server = RedisServer.start()) {
            RedisClient client = RedisClient.create(server.uri());
            client.shutdown();
            try (RedisStore store = RedisStore.builder().client(client).requestTimeout(DEADLINE).clock(clock)
                    .build()) {
                assertThatThrownBy(() -> store.getLevel(ConfigScope.system()))
                        .isInstanceOf(StoreUnavailableException.class);
            }
        }
    }

    /**
     * How long each of {@code threads} calls of {@code call}, started together, took to fail as unavailable. The
     * slack over two deadlines is for a loaded machine; one deadline after another would take ten times as long.
     */
    private static List<Duration> eachCallFromThreads(int threads, Runnable call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Duration>> calls = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                calls.add(pool.submit(() -> {
                    start.await();
                    long started = System.nanoTime();
                    assertThatThrownBy(call::run).isInstanceOf(StoreUnavailableException.class);
                    return Duration.ofNanos(System.nanoTime() - started);
                }));
            }
            start.countDown();
            List<Duration> took = new ArrayList<>();
            for (Future<Duration> f : calls) {
                took.add(f.get(1, TimeUnit.MINUTES));
            }
            return took;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aServerThatDiesAndComesBackOnItsPortIsUsedAgainAndLoadsTheScriptsAgain() throws Exception {
        RedisServer server = RedisServer.start();
        int port = server.port();
        try (RedisStore store = RedisStore.builder().uri(server.uri()).requestTimeout(DEADLINE).clock(clock)
                .build()) {
            RateLimiter limiter = RateLimiter.builder().store(store).clock(clock)
                    .usageFlushInterval(Duration.ZERO).build();
            limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            server.close();
            assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                    .isInstanceOf(StoreUnavailableException.class);
            server = RedisServer.start(port);
            awaitReconnected(store);
            limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
            clock.advance(Duration.ofSeconds(5));                   // past the circuit breaker's cool-down
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            assertThat(limiter.available("user-1", "api")).as("a restart without persistence lost the bucket")
                    .containsEntry("rpm", 9L);
        } finally {
            server.close();
        }
    }

    /**
     * With a supplied client whose own command timeouts are off, a decision that timed out while Redis was down is
     * cancelled with Lettuce's command: the server that comes back never gets it (a late write of a decision the
     * caller was told failed).
     */
    @Test
    void aDecisionThatTimedOutWhileRedisWasDownIsNotSentOnceItIsBack() throws Exception {
        RedisServer server = RedisServer.start();
        int port = server.port();
        RedisClient client = RedisClient.create(server.uri());
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build()).build());
        try (RedisStore store = RedisStore.builder().client(client).requestTimeout(DEADLINE).clock(clock).build()) {
            BucketDebit debit = new BucketDebit(new BucketKey("user-1", "api"), List.of(Limit.perMinute("rpm", 10)),
                    Map.of("rpm", 1000L), false, false);
            store.tryAcquire(List.of(debit), clock.millis());
            server.close();
            assertThatThrownBy(() -> store.tryAcquire(List.of(debit), clock.millis()))
                    .isInstanceOf(StoreUnavailableException.class);
            server = RedisServer.start(port);
            awaitReconnected(store);                // answered after every command buffered before it
            assertThat(server.info("commandstats")).doesNotContain("cmdstat_eval");
        } finally {
            server.close();
            client.shutdown();
        }
    }

    /** Lettuce reconnects in the background: commands fail as unavailable until it has. */
    private static void awaitReconnected(RedisStore store) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                store.getLevel(dev.zaelimiter.store.ConfigScope.system());
                return;
            } catch (StoreUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }
}
