package dev.zaelimiter.store.redis;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Redis that refuses connections, stops answering ({@code SIGSTOP}) or dies gives {@link StoreUnavailableException}
 * within the command deadline, and the store works again once Redis is back.
 */
class RedisUnavailableTest {

    private static final Duration DEADLINE = Duration.ofMillis(300);

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
