package dev.zaelimiter;

import dev.zaelimiter.store.BucketKey;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongUnaryOperator;
import java.util.function.LongFunction;

/**
 * The callers of one process that wait for capacity, one queue per bucket. The waiters of a queue try the store one
 * at a time. Each try may <em>book</em> the call's slot up to the waiter's {@linkplain #horizon horizon} ahead
 * ({@link dev.zaelimiter.store.LimiterStore#tryAcquire(List, long, long)}): the booked lease is then held, outside
 * the queue, until its slot comes, and given back if that wait is interrupted. So waiters of every process are
 * served in the order they reach the store, one store request each.
 *
 * <p>A waiter the store does not book is <em>due</em> again once the wait its rejection computed has shrunk to its
 * horizon (when the store could book it then), or is over (when the store books nothing for it: a quota, a slot, a
 * store that keeps the interface's default); a new waiter is due at once. Of the waiters that are due, the one with
 * the highest priority, then the longest waiting, tries next, so a waiter that asks little and could pass now is
 * never held back by one that asks more and cannot. A waiter looks a little after it is due (jitter, so that
 * processes do not retry in step), and gives up at once, having booked nothing, when the computed wait (without
 * jitter) is longer than what is left of its {@code maxWait}; the jitter is cut to what is left, so it never turns a
 * wait that fits into a refusal. A rejection also holds back the other waiters of the queue that ask at least as much
 * of the same limits (they could not pass sooner), so that one refill is not met by a burst of store requests. Waits
 * for a concurrency slot have no computed end, so such a waiter polls until its deadline, and a lease closing in this
 * process makes every waiter of the bucket due at once. A queue holds at most {@code maxQueue} waiters.
 */
final class WaitQueues {

    private static final Duration SLOT_POLL = Duration.ofMillis(250);

    /** How often a waiter that is due but not first re-checks, in case a signal was missed. */
    private static final long RECHECK_NANOS = SLOT_POLL.toNanos();

    private final ConcurrentHashMap<BucketKey, Queue> queues = new ConcurrentHashMap<>();
    private final AtomicLong arrivals = new AtomicLong();
    private final Clock clock;
    private final Sleeper sleeper;
    private final int maxQueue;
    private final LongUnaryOperator jitter;

    /** One waiting call. The mutable fields are guarded by the lock of its queue. */
    private static final class Waiter {
        final AcquireRequest request;
        final long arrival;
        final long deadline;
        /** When it arrived: its maxWait runs from here to {@link #deadline}. */
        final long start;
        /** From when the request may pass, as far as this process knows. */
        long due;
        /** When the waiter's thread looks again: {@link #due} plus jitter. */
        long wake;

        Waiter(AcquireRequest request, long arrival, long deadline, long now) {
            this.request = request;
            this.arrival = arrival;
            this.deadline = deadline;
            this.start = now;
            this.due = now;
            this.wake = now;
        }

        /** Whether this waiter goes before {@code other} when both are due: higher priority, then earlier. */
        boolean before(Waiter other) {
            int p = request.priority();
            int q = other.request.priority();
            return p != q ? p > q : arrival < other.arrival;
        }
    }

    /** The waiters of one bucket, the condition they wait on, and whether one of them is at the store. */
    private static final class Queue {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        final List<Waiter> waiters = new ArrayList<>();
        boolean trying;
    }

    WaitQueues(Clock clock, Sleeper sleeper, int maxQueue, LongUnaryOperator jitter) {
        this.clock = clock;
        this.sleeper = sleeper;
        this.maxQueue = maxQueue;
        this.jitter = jitter;
    }

    /**
     * Runs {@code attempt} for {@code request} until it admits, waiting between rejections within its maxWait. Each
     * attempt may book up to its {@linkplain #horizon horizon} ahead; a booked lease is held, outside the queue,
     * until its slot comes, and given back if the wait is interrupted.
     */
    Lease acquire(BucketKey key, AcquireRequest request, LongFunction<Lease> attempt) {
        Lease lease = queued(key, request, attempt);
        long wait = DefaultLease.bookedWaitMillis(lease);
        if (wait > 0) {
            awaitSlot(lease, wait);
        }
        return lease;
    }

    /**
     * How far ahead {@code waiter} may book with {@code leftMillis} of its maxWait left: all of it at a priority
     * above zero; at zero (the default) and below, at most its maxWait halved once for each level from one down, so
     * that while a bucket is booked further ahead than that, only callers of a higher priority book it, in any
     * process. The bound does not shrink as the wait goes on, so a waiter told to come back once the bucket's
     * booking has shrunk to it finds room then.
     */
    private static long horizon(Waiter waiter, long leftMillis) {
        if (leftMillis <= 0) {
            return 0;
        }
        int priority = waiter.request.priority();
        return priority > 0 ? leftMillis
                : Math.min(leftMillis, (waiter.deadline - waiter.start) >> Math.min(62, 1 - (long) priority));
    }

    /**
     * Waits for the slot a booked {@code lease} holds, {@code waitMillis} from now by the limiter's clock (sleeping
     * again when a sleep ends early, as a {@link Sleeper} may); gives the lease back when the wait is interrupted or
     * fails, and a rollback that fails too is added to that failure as suppressed.
     */
    private void awaitSlot(Lease lease, long waitMillis) {
        long slot = clock.millis() + waitMillis;
        try {
            for (long left = waitMillis; left > 0; left = slot - clock.millis()) {
                if (sleeper != null) {
                    sleeper.sleep(Duration.ofMillis(left));
                } else {
                    TimeUnit.MILLISECONDS.sleep(left);
                }
            }
        } catch (InterruptedException e) {
            AcquireInterruptedException interrupted = new AcquireInterruptedException(e);
            try {
                lease.rollback();
            } catch (RuntimeException r) {
                interrupted.addSuppressed(r);
            } finally {
                Thread.currentThread().interrupt();
            }
            throw interrupted;
        } catch (RuntimeException | Error e) {
            try {
                lease.rollback();
            } catch (RuntimeException r) {
                e.addSuppressed(r);
            }
            throw e;
        }
    }

    private Lease queued(BucketKey key, AcquireRequest request, LongFunction<Lease> attempt) {
        long now = clock.millis();
        long deadline = now + Math.min(request.maxWait().toMillis(), Long.MAX_VALUE / 4);
        Waiter me = new Waiter(request, arrivals.incrementAndGet(), deadline, now);
        Queue queue = join(key, me);
        if (queue == null) {
            return attempt.apply(0);
        }
        try {
            while (true) {
                awaitTurn(queue, me);
                RateLimitExceededException rejected = null;
                try {
                    return attempt.apply(horizon(me, me.deadline - clock.millis()));
                } catch (RateLimitExceededException e) {
                    rejected = e;
                } finally {
                    if (rejected == null) {
                        doneTrying(queue);
                    }
                }
                long at = clock.millis();
                long left = me.deadline - at;
                boolean polling = rejected.waitsForSlots();
                long wait = polling ? Math.min(Math.max(left, 0), SLOT_POLL.toMillis())
                        : rejected.retryAfter().toMillis();
                if (left <= 0 || wait > left) {
                    doneTrying(queue);
                    throw rejected;
                }
                refused(queue, me, at, wait, polling, rejected.bookingHorizonMillis);
            }
        } finally {
            leave(key, queue, me);
        }
    }

    /**
     * When a waiter whose rejection at {@code now} said {@code wait} tries again: when the store could book within
     * the waiter's {@linkplain #bookable bookable horizon} (the wait is longer than it), once the wait has shrunk to
     * it; otherwise (the store books nothing for such a call) once the wait is over.
     */
    private static long dueAfter(Waiter waiter, long now, long wait, boolean polling, long cap) {
        long horizon = polling ? 0 : bookable(waiter, now, cap);
        return now + (wait > horizon ? wait - horizon : wait);
    }

    /**
     * How far ahead the store would book {@code waiter} at {@code now}: its {@link #horizon}, cut to the
     * {@code cap} its call's limits allow ({@link Decider#bookingHorizon}), so that it and the store agree.
     */
    private static long bookable(Waiter waiter, long now, long cap) {
        return Math.min(cap, horizon(waiter, waiter.deadline - now));
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

    private void leave(BucketKey key, Queue queue, Waiter me) {
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

    /** Capacity of {@code key} was given back in this process: every waiter is due now, and is woken. */
    void released(BucketKey key) {
        Queue queue = queues.get(key);
        if (queue != null) {
            queue.lock.lock();
            try {
                long now = clock.millis();
                for (Waiter waiter : queue.waiters) {
                    waiter.due = Math.min(waiter.due, now);
                    waiter.wake = Math.min(waiter.wake, now);
                }
                queue.changed.signalAll();
            } finally {
                queue.lock.unlock();
            }
        }
    }

    /**
     * Returns once {@code me} may try the store: it is due, nobody of the queue is at the store, and no other due
     * waiter goes before it. Until it is due it sleeps (through the {@link Sleeper} when there is one), otherwise it
     * waits for the queue to change.
     */
    private void awaitTurn(Queue queue, Waiter me) {
        queue.lock.lock();
        try {
            while (true) {
                long now = clock.millis();
                if (me.due <= now) {
                    if (!queue.trying && first(queue, now) == me) {
                        queue.trying = true;
                        return;
                    }
                    queue.changed.awaitNanos(RECHECK_NANOS);
                    continue;
                }
                long sleep = Math.max(me.wake, me.due) - now;
                if (sleeper == null) {
                    queue.changed.await(sleep, TimeUnit.MILLISECONDS);
                    continue;
                }
                queue.lock.unlock();
                try {
                    sleeper.sleep(Duration.ofMillis(sleep));
                } finally {
                    queue.lock.lock();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AcquireInterruptedException(e);
        } finally {
            queue.lock.unlock();
        }
    }

    /** The due waiter that goes first at {@code now}. */
    private static Waiter first(Queue queue, long now) {
        Waiter first = null;
        for (Waiter waiter : queue.waiters) {
            if (waiter.due <= now && (first == null || waiter.before(first))) {
                first = waiter;
            }
        }
        return first;
    }

    private static void doneTrying(Queue queue) {
        queue.lock.lock();
        try {
            queue.trying = false;
            queue.changed.signalAll();
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Records the rejection of {@code me} at {@code now}, whose wait was {@code wait} and whose call the store books
     * at most {@code cap} ahead: it is due again as {@link #dueAfter} says and looks a little later (jitter). Every
     * other waiter that asks at least as much of the same limits could not pass before its own {@code dueAfter} the
     * same wait either, and is held back as long; when {@code me} was refused only because the wait is beyond what
     * it may book, another is held back only until the wait has shrunk to what <em>it</em> may book (at once, when
     * it could book now). One that could then no longer pass within its own deadline is made due at once, so that
     * it fails at once on its own rejection. Pollers for a slot are held back at most to their deadline.
     */
    private void refused(Queue queue, Waiter me, long now, long wait, boolean polling, long cap) {
        queue.lock.lock();
        try {
            me.due = dueAfter(me, now, wait, polling, cap);
            long delay = me.due - now;
            me.wake = polling ? me.due : Math.min(me.deadline, me.due + jitter(delay));
            boolean beyondHorizon = !polling && wait > bookable(me, now, cap);
            for (Waiter other : queue.waiters) {
                if (other == me || !asksAtLeast(other.request, me.request)) {
                    continue;
                }
                long due = beyondHorizon ? now + Math.max(0, wait - bookable(other, now, cap))
                        : dueAfter(other, now, wait, polling, cap);
                long otherDue = Math.max(other.due, due);
                long otherWake = Math.max(other.wake, due + me.wake - me.due);
                if (otherDue > other.deadline) {
                    otherDue = polling ? other.deadline : now;
                    otherWake = otherDue;
                }
                other.due = otherDue;
                other.wake = otherWake;
            }
            queue.trying = false;
            queue.changed.signalAll();
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Whether {@code a} asks at least as much as {@code b} of every limit, with the same limits named, the same
     * per-call limits and the same other targets: whenever {@code a} could pass, {@code b} could.
     */
    static boolean asksAtLeast(AcquireRequest a, AcquireRequest b) {
        Map<String, Long> x = a.consume();
        Map<String, Long> y = b.consume();
        if (!x.keySet().equals(y.keySet()) || !Objects.equals(a.limits(), b.limits()) || !a.also().equals(b.also())) {
            return false;
        }
        for (Map.Entry<String, Long> e : y.entrySet()) {
            Long mine = x.get(e.getKey());
            if (mine == null || e.getValue() == null || mine < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Up to a tenth of {@code wait} (at most a second) more, so that processes do not retry in step. */
    private long jitter(long wait) {
        long spread = Math.min(1000, wait / 10);
        return spread > 0 ? Math.max(0, Math.min(spread, jitter.applyAsLong(spread))) : 0;
    }

    /** The default jitter: uniform from zero to {@code spread} milliseconds. */
    static long randomJitter(long spread) {
        return ThreadLocalRandom.current().nextLong(spread + 1);
    }
}
