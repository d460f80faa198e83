package dev.zaelimiter.contract;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Many threads on one bucket with a frozen clock admit exactly what the bucket holds. */
public abstract class ConcurrencyContract extends StoreContractSupport {

    /** Threads hammering one bucket. */
    protected int threads() {
        return 8;
    }

    /** Acquires per thread. */
    protected int callsPerThread() {
        return 10_000;
    }

    @Test
    void oneBucketAdmitsExactlyItsCapacity() throws Exception {
        int capacity = threads() * callsPerThread() / 4;
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", capacity)));
        long admitted = hammer(() -> limiter.acquire("user-1", "api", consume("rpm", 1)));
        assertThat(admitted).isEqualTo(capacity);
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 0L);
    }

    @Test
    void cascadeAdmitsExactlyTheParentsCapacityAcrossChildren() throws Exception {
        int capacity = threads() * callsPerThread() / 8;
        admin.createEntity("org-1");
        for (int t = 0; t < threads(); t++) {
            admin.createEntity(Entity.of("user-" + t).withParent("org-1").withCascade(true));
        }
        admin.setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1_000_000)));
        admin.setLimits("org-1", "api", List.of(Limit.perMinute("rpm", capacity)));
        long admitted = hammerPerThread(t -> limiter.acquire("user-" + t, "api", consume("rpm", 1)));
        assertThat(admitted).isEqualTo(capacity);
        long childDebits = 0;
        for (int t = 0; t < threads(); t++) {
            childDebits += 1_000_000 - limiter.available("user-" + t, "api").get("rpm");
        }
        assertThat(childDebits).as("every child debit has its parent debit").isEqualTo(capacity);
    }

    private long hammer(Runnable call) throws Exception {
        return hammerPerThread(t -> call.run());
    }

    private interface PerThread {
        void call(int thread);
    }

    private long hammerPerThread(PerThread call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads());
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Long>> results = new ArrayList<>();
            for (int t = 0; t < threads(); t++) {
                int thread = t;
                Callable<Long> worker = () -> {
                    start.await();
                    long admitted = 0;
                    for (int i = 0; i < callsPerThread(); i++) {
                        try {
                            call.call(thread);
                            admitted++;
                        } catch (RateLimitExceededException rejected) {
                            // counted by omission
                        }
                    }
                    return admitted;
                };
                results.add(pool.submit(worker));
            }
            start.countDown();
            long admitted = 0;
            for (Future<Long> result : results) {
                admitted += result.get(5, TimeUnit.MINUTES);
            }
            return admitted;
        } finally {
            pool.shutdownNow();
        }
    }

}
