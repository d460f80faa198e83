package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.CircuitBreaker;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Fault injection on a dynalite process of the test's own, under load (four threads acquiring without pause), on both
 * unavailability policies: the process is stopped (SIGSTOP: a hung store) and continued, or killed (a dead store) and
 * restarted. While the store is out, every decision returns within {@link #BOUND} (the request deadline is 500 ms;
 * without it a call on a hung store waits as long as the hang) and applies the policy: {@code BLOCK} raises
 * {@link StoreUnavailableException}, {@code ALLOW} admits with a degraded lease. The circuit breaker opens once the
 * store failed for a cool-down (the test moves the limiter's clock), so few requests reach the store after that; once the store is back and the cool-down has passed on the limiter's clock, a probe
 * closes the circuit and decisions are the store's again.
 *
 * <p>The outage lasts until the test has seen what it asserts, with the store still out; a decision stuck longer
 * than {@link #BOUND} fails the test while the store is still out, so the test cannot pass by the hang ending first.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DynamoDbFaultTest {

    /** Generous: ten times the request deadline. */
    static final Duration BOUND = Duration.ofSeconds(5);
    static final Duration DEADLINE = Duration.ofMillis(500);
    static final int THREADS = 4;
    static final int THRESHOLD = 5;
    static final Duration COOL_DOWN = Duration.ofSeconds(2);
    static final long PACE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    enum Phase { UP, OUT, BACK }

    enum Kind { ADMITTED, DEGRADED, UNAVAILABLE, OTHER }

    record Call(Phase phase, Kind kind, long nanos, String error) {
    }

    @TempDir
    Path data;

    private final MutableClock clock = MutableClock.start();
    private final RequestCounter requests = new RequestCounter();
    private FaultyDynalite server;
    private Load load;

    @AfterEach
    void tearDown() {
        if (load != null) {
            load.stop();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Unavailable.class)
    void aHungStoreIsBoundedByTheDeadlineThenSkippedUntilItIsBack(Unavailable policy) {
        RateLimiter limiter = limiter(policy);
        load.start();
        awaitStoreDecisions(limiter, Phase.UP);

        server.suspend();
        load.phase(Phase.OUT);
        long openedAt = outage(limiter, policy);
        long requestsWhileOpen = requests.total() - openedAt;
        server.resume();

        recovery(limiter, requestsWhileOpen);
    }

    @ParameterizedTest
    @EnumSource(Unavailable.class)
    void aDeadStoreIsSkippedUntilItIsRestarted(Unavailable policy) {
        RateLimiter limiter = limiter(policy);
        load.start();
        awaitStoreDecisions(limiter, Phase.UP);

        server.kill();
        load.phase(Phase.OUT);
        long openedAt = outage(limiter, policy);
        long requestsWhileOpen = requests.total() - openedAt;
        server.restart();

        recovery(limiter, requestsWhileOpen);
    }

    private RateLimiter limiter(Unavailable policy) {
        server = FaultyDynalite.start(data);
        DynamoDbClient client = server.client(requests);
        DynamoDbStore setup = DynamoDbStore.builder().client(client).table("faults").clock(clock)
                .requestTimeout(DynamoDbTestStores.REQUEST_TIMEOUT).build();     // a cold server may be slow
        setup.createTableIfMissing();
        RateLimiter.builder().store(setup).clock(clock).build().admin()
                .setResourceDefaults("api", List.of(Limit.perMinute("rpm", 100_000_000)));
        DynamoDbStore store = DynamoDbStore.builder().client(client).table("faults").clock(clock)
                .requestTimeout(DEADLINE).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).onUnavailable(policy)
                .circuitBreaker(THRESHOLD, COOL_DOWN).build();
        load = new Load(limiter);
        return limiter;
    }

    /**
     * With the store out: the circuit opens once the store failed for a cool-down, one probe after a cool-down fails,
     * every call applies the policy.
     *
     * @return the store requests made until the circuit opened
     */
    private long outage(RateLimiter limiter, Unavailable policy) {
        Kind expected = policy == Unavailable.BLOCK ? Kind.UNAVAILABLE : Kind.DEGRADED;
        CircuitBreaker breaker = limiter.circuitBreaker();
        long[] failedAtLastAdvance = {0};
        await("the circuit opens", () -> {
            if (breaker.state() == CircuitBreaker.State.OPEN) {
                return true;
            }
            long failed = load.calls.stream().filter(c -> c.phase() == Phase.OUT && c.kind() == expected).count();
            if (failed >= failedAtLastAdvance[0] + THRESHOLD) {
                clock.advance(COOL_DOWN);                       // the failures seen so far lasted a cool-down
                failedAtLastAdvance[0] = failed;
            }
            return false;
        });
        long openedAt = requests.total();
        awaitCalls(Phase.OUT, expected, 200);

        long skipped = breaker.skippedCalls();
        clock.advance(COOL_DOWN);                               // one probe goes to the store, and fails
        await("the probe fails and the circuit opens again", () -> breaker.state() == CircuitBreaker.State.OPEN
                && breaker.skippedCalls() > skipped + 100);

        List<Call> out = load.calls(Phase.OUT);
        assertThat(out).as("every decision with the store out applies the policy")
                .allSatisfy(call -> assertThat(call.kind()).as(call.toString()).isEqualTo(expected));
        report("out, " + policy, out);
        return openedAt;
    }

    /** With the store back: after the cool-down a probe closes the circuit and decisions are the store's. */
    private void recovery(RateLimiter limiter, long requestsWhileOpen) {
        assertThat(requestsWhileOpen).as("requests that reached the store after the circuit opened: the calls in"
                + " flight and one probe").isLessThanOrEqualTo(2 * THREADS + 1);
        load.phase(Phase.BACK);
        awaitStoreDecisions(limiter, Phase.BACK);
        load.stop();

        assertThat(limiter.circuitBreaker().state()).isEqualTo(CircuitBreaker.State.CLOSED);
        report("back", load.calls(Phase.BACK).stream().filter(c -> c.kind() == Kind.ADMITTED).toList());
        List<Call> back = load.calls(Phase.BACK);
        assertThat(back.subList(back.size() - THREADS, back.size())).as("the last call of every thread")
                .allSatisfy(call -> assertThat(call.kind()).isEqualTo(Kind.ADMITTED));
        assertThat(load.calls).as("no error other than the policy's")
                .noneSatisfy(call -> assertThat(call.kind()).isEqualTo(Kind.OTHER));
        assertThat(load.calls).as("every decision, store up, out and back").allSatisfy(call ->
                assertThat(Duration.ofNanos(call.nanos())).isLessThan(BOUND));
    }

    /**
     * Waits for 50 admitted calls in {@code phase}, moving the clock past the cool-down whenever the circuit is open
     * (after the outage; or because a request of a loaded machine missed the deadline), so that a probe goes.
     */
    private void awaitStoreDecisions(RateLimiter limiter, Phase phase) {
        await("50 admitted calls in phase " + phase, () -> {
            if (limiter.circuitBreaker().state() == CircuitBreaker.State.OPEN) {
                clock.advance(COOL_DOWN);
            }
            return load.calls.stream().filter(c -> c.phase() == phase && c.kind() == Kind.ADMITTED).count() >= 50;
        });
    }

    private void awaitCalls(Phase phase, Kind kind, int count) {
        await(count + " " + kind + " calls in phase " + phase,
                () -> load.calls.stream().filter(c -> c.phase() == phase && c.kind() == kind).count() >= count);
    }

    /** Waits for {@code condition}, failing at once when a decision has been under way for longer than the bound. */
    private void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!condition.getAsBoolean()) {
            Duration stuck = load.longestInFlight();
            if (stuck.compareTo(BOUND) > 0) {
                fail("a decision has been under way for " + stuck + " while waiting for " + what);
            }
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what + "; calls: " + load.summary());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static void report(String what, List<Call> calls) {
        long[] nanos = calls.stream().mapToLong(Call::nanos).sorted().toArray();
        System.out.printf("store %s: %d decisions, median %.3f ms, p99 %.3f ms, max %.1f ms%n", what,
                nanos.length, nanos[nanos.length / 2] / 1e6, nanos[(int) (nanos.length * 0.99)] / 1e6,
                nanos[nanos.length - 1] / 1e6);
    }

    /** Threads that acquire without pause and record every call, with the phase it started in. */
    static final class Load {

        private final RateLimiter limiter;
        private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.UP);
        private final AtomicLongArray inFlightSince = new AtomicLongArray(THREADS);
        final Queue<Call> calls = new ConcurrentLinkedQueue<>();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;

        Load(RateLimiter limiter) {
            this.limiter = limiter;
        }

        void start() {
            for (int i = 0; i < THREADS; i++) {
                int slot = i;
                Thread thread = new Thread(() -> run(slot), "fault-load-" + i);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        void phase(Phase next) {
            phase.set(next);
        }

        private void run(int slot) {
            while (running) {
                Phase at = phase.get();
                long started = System.nanoTime();
                inFlightSince.set(slot, started);
                Kind kind;
                String error = null;
                try (Lease lease = limiter.acquire("user-" + slot, "api", Map.of("rpm", 1L))) {
                    kind = lease.degraded() ? Kind.DEGRADED : Kind.ADMITTED;
                } catch (StoreUnavailableException e) {
                    kind = Kind.UNAVAILABLE;
                } catch (RuntimeException e) {
                    kind = Kind.OTHER;
                    error = e.toString();
                }
                inFlightSince.set(slot, 0);
                calls.add(new Call(at, kind, System.nanoTime() - started, error));
                LockSupport.parkNanos(PACE_NANOS);            // a few thousand calls a second in all, not millions
            }
        }

        Duration longestInFlight() {
            long now = System.nanoTime();
            long longest = 0;
            for (int i = 0; i < THREADS; i++) {
                long since = inFlightSince.get(i);
                if (since != 0) {
                    longest = Math.max(longest, now - since);
                }
            }
            return Duration.ofNanos(longest);
        }

        List<Call> calls(Phase of) {
            return calls.stream().filter(c -> c.phase() == of).toList();
        }

        String summary() {
            Map<String, Long> counts = new java.util.TreeMap<>();
            calls.forEach(c -> counts.merge(c.phase() + "/" + c.kind(), 1L, Long::sum));
            return counts.toString();
        }

        void stop() {
            running = false;
            for (Thread thread : threads) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
