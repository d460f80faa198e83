package dev.zaelimiter.autoconfigure.reactive;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ReactiveRateLimiter} offloading its store calls to a scheduler of its own. */
class ReactiveRateLimiterTests {

    private final ExecutorService storeThread = Executors.newSingleThreadExecutor(
            task -> new Thread(task, HoldingClock.STORE_THREAD));
    private final Scheduler storeScheduler = Schedulers.fromExecutorService(storeThread);
    private final HoldingClock clock = new HoldingClock(MutableClock.start());
    private final RateLimiter limiter = RateLimiter.builder().store(new InMemoryStore()).clock(clock).build();

    ReactiveRateLimiterTests() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
    }

    @AfterEach
    void stop() {
        clock.release();
        storeScheduler.dispose();
        storeThread.shutdownNow();
    }

    @Test
    void aLeaseAcquiredForASubscriberThatCancelledIsRolledBack() throws Exception {
        ReactiveRateLimiter reactive = new ReactiveRateLimiter(limiter, storeScheduler, wait -> Mono.empty());
        AtomicReference<Lease> delivered = new AtomicReference<>();
        clock.holdNextCall();

        Disposable subscription = reactive.acquire(AcquireRequest.of("ann", "api").consume("rpm", 3))
                .subscribe(delivered::set);
        assertThat(clock.entered.await(10, TimeUnit.SECONDS)).as("the acquire is in flight").isTrue();
        subscription.dispose();
        clock.release();
        storeThread.submit(() -> { }).get(10, TimeUnit.SECONDS);

        assertThat(delivered).as("nothing reaches a cancelled subscriber").hasValue(null);
        assertThat(limiter.available("ann", "api")).as("the tokens came back").containsEntry("rpm", 10L);
    }

    @Test
    void aWaitForCapacityIsDelayedByTheComputedWaitPlusJitterCutToWhatIsLeft() {
        List<Duration> delays = new ArrayList<>();
        MutableClock time = MutableClock.start();
        RateLimiter waiting = RateLimiter.builder().store(new InMemoryStore()).clock(time).build();
        waiting.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 1)));
        ReactiveRateLimiter reactive = new ReactiveRateLimiter(waiting, null, wait -> Mono.fromRunnable(() -> {
            delays.add(wait);
            time.advance(wait);
        }), spread -> spread);
        waiting.acquire("ann", "api", Map.of("rpm", 1L)).close();

        reactive.acquire(AcquireRequest.of("ann", "api").consume("rpm", 1).maxWait(Duration.ofSeconds(90)))
                .block().close();
        assertThat(delays).as("60 s and the most jitter, one second").containsExactly(Duration.ofSeconds(61));

        delays.clear();
        reactive.acquire(AcquireRequest.of("ann", "api").consume("rpm", 1).maxWait(Duration.ofMillis(60_500)))
                .block().close();
        assertThat(delays).as("the jitter is cut to what is left").containsExactly(Duration.ofMillis(60_500));
    }

    /** A clock that, when asked to, holds the next call on the store thread until released. */
    private static final class HoldingClock extends Clock {

        static final String STORE_THREAD = "test-store";

        private final Clock clock;
        private volatile CountDownLatch gate;
        final CountDownLatch entered = new CountDownLatch(1);

        HoldingClock(Clock clock) {
            this.clock = clock;
        }

        void holdNextCall() {
            gate = new CountDownLatch(1);
        }

        void release() {
            CountDownLatch open = gate;
            gate = null;
            if (open != null) {
                open.countDown();
            }
        }

        @Override
        public Instant instant() {
            CountDownLatch held = gate;
            if (held != null && Thread.currentThread().getName().equals(STORE_THREAD)) {
                entered.countDown();
                try {
                    held.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return clock.instant();
        }

        @Override
        public long millis() {
            return instant().toEpochMilli();
        }

        @Override
        public ZoneId getZone() {
            return clock.getZone();
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }
}
