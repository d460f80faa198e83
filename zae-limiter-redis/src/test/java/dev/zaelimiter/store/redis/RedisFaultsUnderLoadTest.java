package dev.zaelimiter.store.redis;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.CircuitBreaker;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three stores, each with its own client, connection and limiter (three application instances in one JVM), four
 * threads each, deciding on two shared buckets while the server is stopped ({@code SIGSTOP}), continued, killed
 * ({@code SIGKILL}) and started again empty on its port. Every call ends admitted, refused or unavailable within the
 * bound a decision has (its turn, then up to 20 deadlines going round), no thread hangs, every store decides again
 * once the server is back, and each bucket admits at most its capacity once more per loss, plus the refill of the
 * clock's steps. The clock moves only when the test moves it (past the circuit breaker's cool-down): counts, not
 * timings, decide.
 */
@Timeout(300)
class RedisFaultsUnderLoadTest {

    private static final Duration DEADLINE = Duration.ofMillis(300);
    /** A call's turn on its bucket, then 20 deadlines going round, and slack for a loaded machine. */
    private static final long CALL_BOUND_NANOS = DEADLINE.multipliedBy(22).plusSeconds(5).toNanos();
    private static final long CAPACITY = 40;
    private static final List<Limit> LIMITS = List.of(Limit.perHour("rph", CAPACITY));
    private static final String[] BUCKETS = {"tenant-a", "tenant-b"};
    private static final int STORES = 3;
    private static final int THREADS = 4;
    private static final Duration STEP = CircuitBreaker.DEFAULT_COOL_DOWN.plusSeconds(1);

    private final MutableClock clock = MutableClock.start();
    /** How far the test moved the clock: the refill every bucket may have had. */
    private Duration stepped = Duration.ZERO;
    /**
     * From the first fault on, waiting moves the clock past the circuit breaker's cool-down each second: a breaker
     * that opened (or whose trial call came too early) stays open until the clock moves.
     */
    private boolean faulted;

    /** What one store's threads did. */
    private static final class Tally {
        final AtomicLong decided = new AtomicLong();
        final AtomicLong unavailable = new AtomicLong();
        final AtomicLong[] admitted = {new AtomicLong(), new AtomicLong()};
        final AtomicLong overBound = new AtomicLong();
        final AtomicReference<Throwable> unexpected = new AtomicReference<>();
    }

    @Test
    void callsEndWithinTheirBoundAndTotalsStayWithinOneCapacityPerLoss() throws Exception {
        RedisServer server = RedisServer.start();
        int port = server.port();
        List<RedisStore> stores = new ArrayList<>();
        List<RateLimiter> limiters = new ArrayList<>();
        List<Tally> tallies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        try {
            for (int s = 0; s < STORES; s++) {
                RedisStore store = RedisStore.builder().uri(server.uri()).prefix("faults").requestTimeout(DEADLINE)
                        .clock(clock).build();
                stores.add(store);
                RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).onUnavailable(Unavailable.BLOCK)
                        .noUsageHistory().build();
                limiters.add(limiter);
                Tally tally = new Tally();
                tallies.add(tally);
                for (int t = 0; t < THREADS; t++) {
                    int first = t % BUCKETS.length;
                    Thread thread = new Thread(() -> decide(limiter, tally, first, stop), "faults-" + s + "-" + t);
                    threads.add(thread);
                    thread.start();
                }
            }
            await(() -> spent(tallies, CAPACITY), "both buckets spent");
            awaitEach(tallies, t -> t.decided, "every store decides");
            for (int b = 0; b < BUCKETS.length; b++) {
                assertThat(admitted(tallies, b)).as("%s before the faults, the clock still", BUCKETS[b])
                        .isEqualTo(CAPACITY);
            }

            signal("STOP", server.pid());
            faulted = true;
            step();                                           // what the stores learned is old: they ask Redis
            try {
                awaitEach(tallies, t -> t.unavailable, "every store finds the stopped server unavailable");
            } finally {
                signal("CONT", server.pid());
            }
            awaitEach(tallies, t -> t.decided, "every store decides again after SIGCONT");

            signal("KILL", server.pid());
            step();
            awaitEach(tallies, t -> t.unavailable, "every store finds the killed server unavailable");
            long admittedBeforeRestart = admitted(tallies);
            server = RedisServer.start(port);
            for (RedisStore store : stores) {
                await(() -> reconnected(store), "every store reconnects");
            }
            awaitEach(tallies, t -> t.decided, "every store decides again on the restarted server");
            await(() -> admitted(tallies) > admittedBeforeRestart, "the empty server's buckets admit again");
            await(() -> spent(tallies, CAPACITY + CAPACITY / 2), "the new buckets mostly spent");
            for (int round = 0; round < 3; round++) {
                awaitEach(tallies, t -> t.decided, "every store decides on the spent buckets");
            }
        } finally {
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(TimeUnit.MINUTES.toMillis(1));
            }
            limiters.forEach(RateLimiter::close);
            stores.forEach(RedisStore::close);
            server.close();
        }

        assertThat(threads).as("no thread hangs").noneMatch(Thread::isAlive);
        long refill = CAPACITY * stepped.toMillis() / Duration.ofHours(1).toMillis() + 1;
        long losses = 1;
        for (int b = 0; b < BUCKETS.length; b++) {
            assertThat(admitted(tallies, b)).as("%s: capacity, once more per loss, and the refill of the clock's steps",
                    BUCKETS[b]).isLessThanOrEqualTo(CAPACITY * (1 + losses) + refill);
        }
        for (Tally tally : tallies) {
            assertThat(tally.unexpected.get()).as("every call admitted, refused or unavailable").isNull();
            assertThat(tally.overBound.get()).as("calls past %d ms", TimeUnit.NANOSECONDS.toMillis(CALL_BOUND_NANOS))
                    .isZero();
        }
    }

    private static void decide(RateLimiter limiter, Tally tally, int first, AtomicBoolean stop) {
        AcquireRequest[] requests = new AcquireRequest[BUCKETS.length];
        for (int b = 0; b < BUCKETS.length; b++) {
            requests[b] = AcquireRequest.of(BUCKETS[b], "api").consume("rph", 1).limits(LIMITS);
        }
        for (int i = first; !stop.get(); i++) {
            int b = i % BUCKETS.length;
            long started = System.nanoTime();
            try (Lease lease = limiter.acquire(requests[b])) {
                tally.admitted[b].incrementAndGet();
                tally.decided.incrementAndGet();
            } catch (RateLimitExceededException refused) {
                tally.decided.incrementAndGet();
            } catch (StoreUnavailableException unavailable) {
                tally.unavailable.incrementAndGet();
            } catch (Throwable e) {
                tally.unexpected.compareAndSet(null, e);
            }
            if (System.nanoTime() - started > CALL_BOUND_NANOS) {
                tally.overBound.incrementAndGet();
            }
            // paced, so that twelve threads refusing locally leave the machine to the server and the test
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static long admitted(List<Tally> tallies, int bucket) {
        long admitted = 0;
        for (Tally tally : tallies) {
            admitted += tally.admitted[bucket].get();
        }
        return admitted;
    }

    /** Whether every bucket has admitted at least {@code count} calls. */
    private static boolean spent(List<Tally> tallies, long count) {
        for (int b = 0; b < BUCKETS.length; b++) {
            if (admitted(tallies, b) < count) {
                return false;
            }
        }
        return true;
    }

    private static long admitted(List<Tally> tallies) {
        long admitted = 0;
        for (Tally tally : tallies) {
            for (AtomicLong bucket : tally.admitted) {
                admitted += bucket.get();
            }
        }
        return admitted;
    }

    private void step() {
        clock.advance(STEP);
        stepped = stepped.plus(STEP);
    }

    /** Whether {@code store} answers (Lettuce reconnects in the background; until then commands fail at once). */
    private static boolean reconnected(RedisStore store) {
        try {
            store.getLevel(dev.zaelimiter.store.ConfigScope.system());
            return true;
        } catch (StoreUnavailableException e) {
            return false;
        }
    }

    /** Waits until each tally's {@code counter} has grown from now on. */
    private void awaitEach(List<Tally> tallies, java.util.function.Function<Tally, AtomicLong> counter,
            String what) throws InterruptedException {
        long[] from = new long[tallies.size()];
        for (int i = 0; i < from.length; i++) {
            from[i] = counter.apply(tallies.get(i)).get();
        }
        await(() -> {
            for (int i = 0; i < from.length; i++) {
                if (counter.apply(tallies.get(i)).get() <= from[i]) {
                    return false;
                }
            }
            return true;
        }, what);
    }

    private void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        long nextStep = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            if (faulted && System.nanoTime() >= nextStep) {
                step();
                nextStep = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            }
            Thread.sleep(20);
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }
}
