package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A process alone on a bucket refuses locally only what the bucket cannot cover: its threads racing each other for
 * the last token is no race lost to another process, so the bucket does not count as contended afterwards.
 */
class DynamoDbLocalRefusalTest {

    private static final int THREADS = 12;
    private static final int BUCKETS = 8;

    @Test
    void threadsThatRacedEachOtherForTheLastTokenAreAllAdmittedOnceTheBucketRefilled() throws Exception {
        MutableClock clock = MutableClock.start();
        DynamoDbStore store = DynamoDbTestStores.newStore(getClass(), clock);
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).usageFlushInterval(Duration.ZERO)
                .build();
        limiter.admin().setResourceDefaults("api", List.of(Limit.perSecond("rps", 50)));
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            limiter.acquire("e" + bucket, "api", Map.of("rps", 49L)).close();
        }
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            burst(limiter, "e" + bucket, failures);                 // the threads race for the last token
        }
        clock.advance(Duration.ofSeconds(1));                        // every bucket full again
        AtomicInteger refused = new AtomicInteger();
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            refused.addAndGet(burst(limiter, "e" + bucket, failures));
        }

        assertThat(failures).isEmpty();
        assertThat(refused.get()).as("calls refused of %d on full buckets of 50", BUCKETS * THREADS).isZero();
    }

    /** {@link #THREADS} calls of one token each, sent together; returns how many were refused. */
    private static int burst(RateLimiter limiter, String entity, List<Throwable> failures) throws Exception {
        AtomicInteger refused = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    limiter.acquire(entity, "api", Map.of("rps", 1L)).close();
                } catch (RateLimitExceededException e) {
                    refused.incrementAndGet();
                } catch (Exception e) {
                    failures.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return refused.get();
    }
}
