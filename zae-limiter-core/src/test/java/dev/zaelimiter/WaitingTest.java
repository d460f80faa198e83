package dev.zaelimiter;

import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.ClockSleeper;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Waiting for capacity: within maxWait, never booking what it will not use, by priority within a process. */
@Timeout(60)
class WaitingTest {

    /** Until {@code count} calls wait on user-1's jobs bucket; fails instead of hanging. */
    private static void awaitWaiters(RateLimiter limiter, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (limiter.waiting("user-1", "jobs") < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + count + " waiters, found " + limiter.waiting("user-1", "jobs"));
            }
            Thread.onSpinWait();
        }
    }

    private final MutableClock clock = MutableClock.start();
    private final List<Duration> slept = Collections.synchronizedList(new ArrayList<>());
    private final RateLimiter limiter = RateLimiter.builder().store(new InMemoryStore()).clock(clock)
            .sleeper(d -> {
                slept.add(d);
                clock.advance(d);
            }).build();

    @Test
    void waitsForTheRefillWhenItFitsInMaxWait() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        limiter.acquire("user-1", "api", Map.of("rpm", 60L));
        AcquireRequest patient = AcquireRequest.of("user-1", "api").consume("rpm", 2).maxWait(Duration.ofSeconds(5));

        limiter.acquire(patient);

        assertThat(slept).hasSize(1);
        assertThat(slept.get(0)).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2200));
        assertThat(limiter.available("user-1", "api").get("rpm")).isBetween(0L, 1L);
    }

    @Test
    void aWaitLongerThanMaxWaitFailsAtOnceAndBooksNothing() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 2)));
        limiter.acquire("user-1", "api", Map.of("rpm", 2L));
        AcquireRequest hasty = AcquireRequest.of("user-1", "api").consume("rpm", 1).maxWait(Duration.ofSeconds(5));

        assertThatThrownBy(() -> limiter.acquire(hasty)).isInstanceOfSatisfying(RateLimitExceededException.class,
                e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30)));

        assertThat(slept).isEmpty();
        assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 0L);
        assertThat(limiter.waiting("user-1", "api")).isZero();
    }

    @Test
    void aBypassedWaiterIsAdmittedAtOnceWhateverTheBucketOwes() {
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 6)));
        limiter.acquire("vip", "api", Map.of("rpm", 6L)).adjust("rpm", 4);     // 4 tokens in debt: 40 s
        limiter.admin().setEntityDisabled("vip", "api", DisabledMode.BYPASS);

        limiter.acquire(AcquireRequest.of("vip", "api").consume("rpm", 1).maxWait(Duration.ofSeconds(15)));

        assertThat(slept).isEmpty();
    }

    @Test
    void aWaitBeyondTheFillTimeIsBookedOnceItHasShrunkToIt() {
        RateLimiter steady = RateLimiter.builder().store(new InMemoryStore()).clock(clock).jitter(spread -> 0)
                .sleeper(d -> {
                    slept.add(d);
                    clock.advance(d);
                }).build();
        steady.admin().setResourceDefaults("api", List.of(Limit.custom("rpm", 1, 1, Duration.ofSeconds(10))));
        steady.acquire("user-1", "api", Map.of("rpm", 1L)).adjust("rpm", 1);     // a token in debt: 20 s
        AcquireRequest patient = AcquireRequest.of("user-1", "api").consume("rpm", 1).priority(1)
                .maxWait(Duration.ofSeconds(30));

        steady.acquire(patient);

        assertThat(slept).as("no booking beyond the 10 s the limit takes to fill: it looks again after 10 s, books")
                .containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(10));
    }

    @Test
    void theJitterNeverTurnsAWaitThatFitsIntoARefusalNorDelaysABookedSlot() {
        RateLimiter jittery = RateLimiter.builder().store(new InMemoryStore()).clock(clock).sleeper(d -> {
            slept.add(d);
            clock.advance(d);
        }).jitter(spread -> spread).build();            // always the largest jitter: a tenth of the wait
        jittery.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        // an empty bucket and 2 tokens asked: a computed wait of 2 s. A default-priority waiter books at most half
        // its maxWait ahead: with maxWait 2 s it looks again after 1 s plus jitter, then books the rest exactly
        long[] maxWaits = {2000, 2100, 2199, 2200, 5000};
        for (int i = 0; i < maxWaits.length; i++) {
            String user = "user-" + i;
            jittery.acquire(user, "api", Map.of("rpm", 60L));
            slept.clear();

            jittery.acquire(AcquireRequest.of(user, "api").consume("rpm", 2)
                    .maxWait(Duration.ofMillis(maxWaits[i])));

            assertThat(slept.stream().mapToLong(Duration::toMillis).sum()).as("maxWait %d ms", maxWaits[i])
                    .isEqualTo(2000);
        }
        assertThat(slept).as("booked at once: one sleep, no jitter").containsExactly(Duration.ofSeconds(2));

        // one millisecond short of the computed wait: refused at once, whatever the jitter
        jittery.acquire("user-x", "api", Map.of("rpm", 60L));
        slept.clear();
        assertThatThrownBy(() -> jittery.acquire(AcquireRequest.of("user-x", "api").consume("rpm", 2)
                .maxWait(Duration.ofMillis(1999)))).isInstanceOf(RateLimitExceededException.class);
        assertThat(slept).isEmpty();
    }

    @Test
    void aBookedCallWaitsForItsSlotWhenTheSleeperReturnsEarly() {
        RateLimiter hurried = RateLimiter.builder().store(new InMemoryStore()).clock(clock).sleeper(d -> {
            slept.add(d);
            clock.advance(Duration.ofMillis(Math.max(1, d.toMillis() / 2)));   // "or less": half of it
        }).build();
        hurried.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 60)));
        hurried.acquire("user-1", "api", Map.of("rpm", 60L));
        long start = clock.millis();

        hurried.acquire(AcquireRequest.of("user-1", "api").consume("rpm", 2).maxWait(Duration.ofSeconds(5)));

        assertThat(slept.get(0)).as("booked at once").isEqualTo(Duration.ofSeconds(2));
        assertThat(clock.millis() - start).as("admitted at its slot, not before").isEqualTo(2000);
    }

    @Test
    void anInterruptedBookingWhoseRollbackFailsStillRaisesTheInterruption() {
        InMemoryStore memory = new InMemoryStore();
        LimiterStore failingWrites = new dev.zaelimiter.store.ForwardingStore() {
            @Override
            protected LimiterStore delegate() {
                return memory;
            }

            @Override
            public void apply(List<BucketDebit> debits, long now) {
                throw new StoreUnavailableException("down", null);
            }
        };
        RateLimiter interrupted = RateLimiter.builder().store(failingWrites).clock(clock).sleeper(d -> {
            throw new InterruptedException("stop");
        }).build();
        interrupted.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 6)));
        interrupted.acquire("user-1", "api", Map.of("rpm", 6L));
        try {
            assertThatThrownBy(() -> interrupted.acquire(AcquireRequest.of("user-1", "api").consume("rpm", 1)
                    .priority(1).maxWait(Duration.ofSeconds(15))))
                    .isInstanceOfSatisfying(AcquireInterruptedException.class, e -> assertThat(e.getSuppressed())
                            .singleElement().isInstanceOf(StoreUnavailableException.class));
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt flag is set").isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    /** A limiter on {@code clock} whose waiters sleep until the test moves the clock, with no jitter. */
    private RateLimiter steppedBy(ClockSleeper sleeper) {
        return RateLimiter.builder().store(new InMemoryStore()).clock(clock).jitter(spread -> 0).sleeper(sleeper)
                .build();
    }

    @Test
    void aLowerPriorityLeavesTheSlotsBeyondItsHorizonToAHigherOne() throws Exception {
        ClockSleeper sleeper = new ClockSleeper(clock);
        RateLimiter gated = steppedBy(sleeper);
        gated.admin().setResourceDefaults("jobs", List.of(Limit.perMinute("rpm", 6)));   // one every 10 s
        gated.acquire("user-1", "jobs", Map.of("rpm", 6L));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Lease> low = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "jobs").consume("rpm", 1).maxWait(Duration.ofSeconds(15))), pool);
            assertThat(sleeper.nextSleep()).as("priority 0 books at most 7.5 s ahead: it looks again in 2.5 s")
                    .isEqualTo(Duration.ofMillis(2500));
            CompletableFuture<Lease> high = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "jobs").consume("rpm", 1).priority(1).maxWait(Duration.ofSeconds(15))), pool);
            assertThat(sleeper.nextSleep()).as("priority 1 books its whole maxWait ahead: the next token")
                    .isEqualTo(Duration.ofSeconds(10));

            clock.advance(Duration.ofMillis(2500));     // the next token is booked: the one after does not fit
            assertThatThrownBy(() -> low.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RateLimitExceededException.class);
            clock.advance(Duration.ofMillis(7500));
            assertThat(high.get(30, TimeUnit.SECONDS).statuses()).singleElement()
                    .satisfies(s -> assertThat(s.available()).isZero());
        } finally {
            clock.advance(Duration.ofHours(1));
            pool.shutdownNow();
        }
    }

    @Test
    void aRefusalBeyondTheRefusedWaitersHorizonDoesNotHoldBackOneWithALongerHorizon() throws Exception {
        CountDownLatch atStore = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean gate = new AtomicBoolean(true);
        InMemoryStore memory = new InMemoryStore();
        LimiterStore held = new dev.zaelimiter.store.ForwardingStore() {
            @Override
            protected LimiterStore delegate() {
                return memory;
            }

            @Override
            public AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
                if (gate.getAndSet(false)) {         // the first waiter stays at the store until the second queues
                    atStore.countDown();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
                return memory.tryAcquire(debits, now, horizonMillis);
            }
        };
        ClockSleeper sleeper = new ClockSleeper(clock);
        RateLimiter gated = RateLimiter.builder().store(held).clock(clock).jitter(spread -> 0).sleeper(sleeper)
                .build();
        gated.admin().setResourceDefaults("jobs", List.of(Limit.perMinute("rpm", 6)));   // one every 10 s
        gated.acquire("user-1", "jobs", Map.of("rpm", 6L));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Lease> low = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "jobs").consume("rpm", 1).maxWait(Duration.ofSeconds(15))), pool);
            assertThat(atStore.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Lease> high = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "jobs").consume("rpm", 1).priority(1).maxWait(Duration.ofSeconds(15))), pool);
            awaitWaiters(gated, 2);
            go.countDown();          // low is refused: the token 10 s away is beyond its 7.5 s horizon, not high's
            assertThat(List.of(sleeper.nextSleep(), sleeper.nextSleep()))
                    .containsExactlyInAnyOrder(Duration.ofMillis(2500), Duration.ofSeconds(10));

            clock.advance(Duration.ofMillis(2500));
            assertThatThrownBy(() -> low.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RateLimitExceededException.class);
            clock.advance(Duration.ofMillis(7500));
            assertThat(high.get(30, TimeUnit.SECONDS).statuses()).singleElement()
                    .satisfies(s -> assertThat(s.available()).isZero());
        } finally {
            go.countDown();
            clock.advance(Duration.ofHours(1));
            pool.shutdownNow();
        }
    }

    @Test
    void withinTheirHorizonsWaitersBookInTheOrderTheyAskWhateverTheirPriority() throws Exception {
        ClockSleeper sleeper = new ClockSleeper(clock);
        RateLimiter gated = steppedBy(sleeper);
        gated.admin().setResourceDefaults("jobs", List.of(Limit.perMinute("rpm", 6)));   // one every 10 s
        gated.acquire("user-1", "jobs", Map.of("rpm", 6L));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Lease> first = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "jobs").consume("rpm", 1).priority(1).maxWait(Duration.ofSeconds(30))), pool);
            assertThat(sleeper.nextSleep()).isEqualTo(Duration.ofSeconds(10));
            CompletableFuture<Lease> later = CompletableFuture.supplyAsync(() -> gated.acquire(AcquireRequest
                    .of("user-1", "jobs").consume("rpm", 1).priority(9).maxWait(Duration.ofSeconds(30))), pool);
            assertThat(sleeper.nextSleep()).as("the slot after the one booked first")
                    .isEqualTo(Duration.ofSeconds(20));

            clock.advance(Duration.ofSeconds(10));
            assertThat(first.get(30, TimeUnit.SECONDS)).isNotNull();
            assertThat(later).isNotDone();
            clock.advance(Duration.ofSeconds(10));
            assertThat(later.get(30, TimeUnit.SECONDS)).isNotNull();
        } finally {
            clock.advance(Duration.ofHours(1));
            pool.shutdownNow();
        }
    }

    @Test
    void aRejectionHoldsBackOnlyTheWaitersThatAskAtLeastAsMuchOfTheSameLimits() {
        AcquireRequest one = AcquireRequest.of("user-1", "api").consume("rpm", 1).consume("tpm", 100);
        assertThat(WaitQueues.asksAtLeast(one, one)).isTrue();
        assertThat(WaitQueues.asksAtLeast(one.consume("tpm", 101).priority(7), one)).isTrue();
        assertThat(WaitQueues.asksAtLeast(one, one.consume("tpm", 101))).isFalse();
        assertThat(WaitQueues.asksAtLeast(one.consume("inflight", 0), one)).as("other limits named").isFalse();
        assertThat(WaitQueues.asksAtLeast(one.limits(List.of(Limit.perMinute("rpm", 5))), one)).isFalse();
        assertThat(WaitQueues.asksAtLeast(one.also("shared", "smtp", Map.of("messages", 1L)), one)).isFalse();
    }

    @Test
    void aSlotWaiterPollsUntilItsDeadlineThenFails() {
        limiter.admin().setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 1)));
        limiter.acquire("user-1", "jobs", Map.of());
        AcquireRequest request = AcquireRequest.of("user-1", "jobs").maxWait(Duration.ofSeconds(1));

        assertThatThrownBy(() -> limiter.acquire(request)).isInstanceOf(RateLimitExceededException.class);

        assertThat(slept.stream().mapToLong(Duration::toMillis).sum()).isEqualTo(1000);
    }

    @Test
    void aSlotGivenBackInThisProcessWakesAWaiter() throws Exception {
        RateLimiter parked = RateLimiter.builder().store(new InMemoryStore()).build();
        parked.admin().setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 1)));
        Lease holder = parked.acquire("user-1", "jobs", Map.of());
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> parked.acquire(
                AcquireRequest.of("user-1", "jobs").maxWait(Duration.ofMinutes(1))));
        awaitWaiters(parked, 1);
        holder.close();
        Lease admitted = waiter.get(30, TimeUnit.SECONDS);
        assertThat(admitted.statuses()).singleElement().satisfies(s -> assertThat(s.available()).isZero());
    }

    @Test
    void waitersGoByPriorityThenArrival() throws Exception {
        // a clock that stands still: a rejected waiter is due again only when the slot is given back, so no poll
        // of a lower priority can be at the store at that moment
        RateLimiter parked = RateLimiter.builder().store(new InMemoryStore()).clock(MutableClock.start()).build();
        parked.admin().setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 1)));
        Lease holder = parked.acquire("user-1", "jobs", Map.of());
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        List<Thread> waiters = new ArrayList<>();
        String[] names = {"low", "high", "middle", "high-later"};
        int[] priorities = {1, 9, 5, 9};
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            int priority = priorities[i];
            Thread waiter = new Thread(() -> {
                try (Lease lease = parked.acquire(AcquireRequest.of("user-1", "jobs").priority(priority)
                        .maxWait(Duration.ofMinutes(1)))) {
                    order.add(name);
                }
            }, name);
            waiter.start();
            waiters.add(waiter);
            awaitWaiters(parked, i + 1);
            awaitParked(waiter);
        }
        holder.close();
        for (Thread waiter : waiters) {
            waiter.join(60_000);
        }
        assertThat(order).containsExactly("high", "high-later", "middle", "low");
    }

    /** Waits until {@code thread} has made its first attempt and waits for its turn again. */
    private static void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(thread.getName() + " never waited, it is " + thread.getState());
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void beyondMaxQueueCallsFailAtOnce() throws Exception {
        RateLimiter small = RateLimiter.builder().store(new InMemoryStore()).maxQueue(1).build();
        small.admin().setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 1)));
        Lease holder = small.acquire("user-1", "jobs", Map.of());
        CompletableFuture<Lease> first = CompletableFuture.supplyAsync(() -> small.acquire(
                AcquireRequest.of("user-1", "jobs").maxWait(Duration.ofMinutes(1))));
        awaitWaiters(small, 1);
        assertThatThrownBy(() -> small.acquire(AcquireRequest.of("user-1", "jobs").maxWait(Duration.ofMinutes(1))))
                .isInstanceOf(RateLimitExceededException.class);
        holder.close();
        first.get(30, TimeUnit.SECONDS).close();
    }

    @Test
    void anInterruptedWaiterStopsAndBooksNothing() throws Exception {
        RateLimiter parked = RateLimiter.builder().store(new InMemoryStore()).build();
        parked.admin().setResourceDefaults("jobs", List.of(Limit.concurrency("inflight", 1)));
        parked.acquire("user-1", "jobs", Map.of());
        List<Throwable> failure = new ArrayList<>();
        Thread waiter = new Thread(() -> {
            try {
                parked.acquire(AcquireRequest.of("user-1", "jobs").maxWait(Duration.ofMinutes(1)));
            } catch (Throwable t) {
                failure.add(t);
                failure.add(Thread.currentThread().isInterrupted() ? null : new AssertionError("flag cleared"));
            }
        });
        waiter.start();
        awaitWaiters(parked, 1);
        waiter.interrupt();
        waiter.join(30_000);
        assertThat(failure.get(0)).isInstanceOf(AcquireInterruptedException.class);
        assertThat(failure.get(1)).isNull();
        assertThat(parked.available("user-1", "jobs")).containsEntry("inflight", 0L);
    }
}
