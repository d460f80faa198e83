package dev.zaelimiter.store.redis;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One application instance of {@link RedisFaultsAcrossProcessesTest}, in a JVM of its own: a store and limiter on
 * the real clock, {@code threads} threads deciding on the shared buckets in turn. Prints
 * {@code TALLY <counts>} every 50 ms, and on {@code STOP} from stdin stops its threads and prints
 * {@code END <counts> <threads still running>}. Arguments: URI, threads, the bound of one call in milliseconds.
 */
final class RedisFaultsWorker {

    static final Duration DEADLINE = Duration.ofMillis(300);
    static final long CAPACITY = 40;
    /** Two tokens a second: a spent bucket's retry-after is short, so the threads keep asking Redis. */
    static final long REFILL_PER_SECOND = 2;
    static final List<Limit> LIMITS = List.of(Limit.custom("rps", CAPACITY, REFILL_PER_SECOND, Duration.ofSeconds(1)));
    static final String[] BUCKETS = {"tenant-a", "tenant-b"};

    /** Decided, unavailable, admitted on each bucket, calls past the bound, calls that ended otherwise. */
    private final AtomicLong[] counts = {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong(),
            new AtomicLong(), new AtomicLong()};
    private final AtomicBoolean stop = new AtomicBoolean();

    private RedisFaultsWorker() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        new RedisFaultsWorker().run(args[0], Integer.parseInt(args[1]),
                TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[2])));
        System.exit(0);
    }

    private void run(String uri, int threadCount, long boundNanos) throws Exception {
        List<Thread> threads = new ArrayList<>();
        try (RedisStore store = RedisStore.builder().uri(uri).prefix("faults").requestTimeout(DEADLINE).build();
                RateLimiter limiter = RateLimiter.builder().store(store).onUnavailable(Unavailable.BLOCK)
                        .noUsageHistory().build()) {
            for (int t = 0; t < threadCount; t++) {
                int first = t % BUCKETS.length;
                Thread thread = new Thread(() -> decide(limiter, first, boundNanos), "faults-" + t);
                threads.add(thread);
                thread.start();
            }
            Thread reporter = new Thread(this::report, "faults-report");
            reporter.setDaemon(true);
            reporter.start();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals("STOP"); line = in.readLine()) {
                // only STOP (or the end of stdin) ends the run
            }
            stop.set(true);
            long alive = 0;
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(10));
                alive += thread.isAlive() ? 1 : 0;
            }
            reporter.interrupt();
            System.out.println("END " + line() + " " + alive);
            System.out.flush();
        }
    }

    private void decide(RateLimiter limiter, int first, long boundNanos) {
        AcquireRequest[] requests = new AcquireRequest[BUCKETS.length];
        for (int b = 0; b < BUCKETS.length; b++) {
            requests[b] = AcquireRequest.of(BUCKETS[b], "api").consume("rps", 1).limits(LIMITS);
        }
        for (int i = first; !stop.get(); i++) {
            int b = i % BUCKETS.length;
            long started = System.nanoTime();
            try (Lease lease = limiter.acquire(requests[b])) {
                counts[2 + b].incrementAndGet();
                counts[0].incrementAndGet();
            } catch (RateLimitExceededException refused) {
                counts[0].incrementAndGet();
            } catch (StoreUnavailableException unavailable) {
                counts[1].incrementAndGet();
            } catch (Throwable e) {
                counts[5].incrementAndGet();
                e.printStackTrace();
            }
            if (System.nanoTime() - started > boundNanos) {
                counts[4].incrementAndGet();
            }
            // paced, so that the threads refusing locally leave the machine to the server and the other workers
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    private void report() {
        while (!Thread.currentThread().isInterrupted()) {
            System.out.println("TALLY " + line());
            System.out.flush();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private String line() {
        StringBuilder line = new StringBuilder();
        for (AtomicLong count : counts) {
            line.append(line.length() == 0 ? "" : " ").append(count.get());
        }
        return line.toString();
    }
}
