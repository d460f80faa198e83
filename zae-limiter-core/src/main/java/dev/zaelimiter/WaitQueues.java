package dev.zaelimiter;

import dev.zaelimiter.store.BucketKey;

import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * The callers of one process that wait for capacity, one queue per bucket. Only the head of a queue (highest
 * priority, then longest waiting) tries the store; it waits as long as the rejection says (plus jitter, so that
 * processes do not retry in step), and gives up at once, having booked nothing, when that wait, without the jitter,
 * is longer than what is left of its {@code maxWait}. The jitter is cut to what is left, so it never turns a wait that
 * fits into a refusal. Waits for a concurrency slot have no computed end, so the head polls until its deadline, and
 * a lease closing in this process wakes it at once. A queue holds at most {@code maxQueue} waiters.
 */
final class WaitQueues {

    private static final Duration SLOT_POLL = Duration.ofMillis(250);

    private final ConcurrentHashMap<BucketKey, Queue> queues = new ConcurrentHashMap<>();
    private final AtomicLong arrivals = new AtomicLong();
    private final Clock clock;
    private final Sleeper sleeper;
    private final int maxQueue;
    private final LongUnaryOperator jitter;

    private record Waiter(int priority, long arrival) {
    }

    /** The waiters of one bucket and the condition they wait on. */
    private static final class Queue {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        final PriorityQueue<Waiter> waiters = new PriorityQueue<>(
                Comparator.comparingInt(Waiter::priority).reversed().thenComparingLong(Waiter::arrival));
    }

    WaitQueues(Clock clock, Sleeper sleeper, int maxQueue, LongUnaryOperator jitter) {
        this.clock = clock;
        this.sleeper = sleeper;
        this.maxQueue = maxQueue;
        this.jitter = jitter;
    }

    /** Runs {@code attempt} until it admits, waiting between rejections within {@code maxWait}. */
    Lease acquire(BucketKey key, Duration maxWait, int priority, Supplier<Lease> attempt) {
        long deadline = clock.millis() + Math.min(maxWait.toMillis(), Long.MAX_VALUE / 4);
        Waiter me = new Waiter(priority, arrivals.incrementAndGet());
        Queue queue = join(key, me);
        if (queue == null) {
            return attempt.get();
        }
        try {
            while (true) {
                awaitTurn(queue, me, deadline);
                try {
                    return attempt.get();
                } catch (RateLimitExceededException rejected) {
                    long left = deadline - clock.millis();
                    Duration wait = rejected.waitsForSlots()
                            ? (left <= 0 ? rejected.retryAfter() : Duration.ofMillis(Math.min(left,
                                    SLOT_POLL.toMillis())))
                            : rejected.retryAfter();
                    if (wait.toMillis() > left || left <= 0) {
                        throw rejected;
                    }
                    pause(queue, rejected.waitsForSlots() ? wait : withJitter(wait, left));
                }
            }
        } finally {
            queue.lock.lock();
            try {
                queue.waiters.remove(me);
                queue.changed.signalAll();
                if (queue.waiters.isEmpty()) {
                    queues.remove(key, queue);
                }
            } finally {
                queue.lock.unlock();
            }
        }
    }

    /**
     * Adds {@code me} to the queue of {@code key}, creating it if needed; {@code null} when the queue is full. A
     * queue is removed from the map, under its lock, only when it is empty, so a queue found in the map and still in
     * it once locked is live.
     */
    private Queue join(BucketKey key, Waiter me) {
        while (true) {
            Queue queue = queues.computeIfAbsent(key, k -> new Queue());
            queue.lock.lock();
            try {
                if (queues.get(key) != queue) {
                    continue;
                }
                if (queue.waiters.size() >= maxQueue) {
                    return null;
                }
                queue.waiters.add(me);
                return queue;
            } finally {
                queue.lock.unlock();
            }
        }
    }

    /** How many calls wait on {@code key} now. */
    int waiting(BucketKey key) {
        Queue queue = queues.get(key);
        if (queue == null) {
            return 0;
        }
        queue.lock.lock();
        try {
            return queue.waiters.size();
        } finally {
            queue.lock.unlock();
        }
    }

    /** Wakes the waiters of {@code key}, because capacity was given back in this process. */
    void released(BucketKey key) {
        Queue queue = queues.get(key);
        if (queue != null) {
            queue.lock.lock();
            try {
                queue.changed.signalAll();
            } finally {
                queue.lock.unlock();
            }
        }
    }

    private void awaitTurn(Queue queue, Waiter me, long deadline) {
        queue.lock.lock();
        try {
            while (queue.waiters.peek() != me) {
                long left = deadline - clock.millis();
                if (left <= 0) {
                    left = 1;
                }
                queue.changed.await(left, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AcquireInterruptedException(e);
        } finally {
            queue.lock.unlock();
        }
    }

    private void pause(Queue queue, Duration wait) {
        try {
            if (sleeper != null) {
                sleeper.sleep(wait);
                return;
            }
            queue.lock.lock();
            try {
                queue.changed.await(wait.toNanos(), TimeUnit.NANOSECONDS);
            } finally {
                queue.lock.unlock();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AcquireInterruptedException(e);
        }
    }

    /**
     * The wait plus up to a tenth more (at most a second), so that processes do not retry in step, but never more
     * than {@code left}: the jitter only shortens the slack of a wait that fits.
     */
    private Duration withJitter(Duration wait, long left) {
        long millis = wait.toMillis();
        long spread = Math.min(1000, millis / 10);
        long extra = spread > 0 ? Math.max(0, Math.min(spread, jitter.applyAsLong(spread))) : 0;
        return Duration.ofMillis(Math.min(left, millis + extra));
    }

    /** The default jitter: uniform from zero to {@code spread} milliseconds. */
    static long randomJitter(long spread) {
        return ThreadLocalRandom.current().nextLong(spread + 1);
    }
}
