package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.testing.MutableClock;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

import java.time.Duration;
import java.time.Instant;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Threads that take turns on a {@link MutableClock}: exactly one runs at a time, and the clock moves only when the
 * running one sleeps ({@link #sleepUntil}), to the earliest wake-up due. A store's client given {@link #network}
 * spends virtual time on each request, half on the way to the server and half back, so that calls of several
 * processes overlap in flight as they do on a real network, yet every run takes the same turns: a model of many
 * processes on one controllable clock, with counts that do not depend on the machine's load.
 */
final class VirtualTime {

    private record Waiter(long atMicros, long order, Semaphore go) {
    }

    private final MutableClock clock;
    private final Instant start;
    private final PriorityQueue<Waiter> due = new PriorityQueue<>((a, b) -> a.atMicros != b.atMicros
            ? Long.compare(a.atMicros, b.atMicros) : Long.compare(a.order, b.order));
    private final Semaphore finished = new Semaphore(0);
    private final ThreadLocal<Boolean> mine = ThreadLocal.withInitial(() -> false);
    private long nowMicros;
    private long order;
    private int running;

    VirtualTime(MutableClock clock) {
        this.clock = clock;
        this.start = clock.instant();
    }

    /** Microseconds since the clock's reading when this was made. */
    synchronized long now() {
        return nowMicros;
    }

    /** Starts {@code body} on a thread of its own that first runs at {@code atMicros}; call before {@link #run}. */
    synchronized void start(long atMicros, Runnable body) {
        Semaphore go = enqueue(atMicros);
        running++;
        Thread thread = new Thread(() -> {
            go.acquireUninterruptibly();
            mine.set(true);
            try {
                body.run();
            } finally {
                synchronized (this) {
                    running--;
                    next();
                }
            }
        }, "virtual-" + order);
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs every started thread to its end, in virtual time. */
    void run() throws InterruptedException {
        synchronized (this) {
            next();
        }
        if (!finished.tryAcquire(5, TimeUnit.MINUTES)) {
            throw new AssertionError("the virtual threads did not finish");
        }
    }

    /** Called by the running thread: lets the others run until {@code atMicros}, then goes on. */
    void sleepUntil(long atMicros) {
        Semaphore mine;
        synchronized (this) {
            mine = enqueue(atMicros);
            next();
        }
        mine.acquireUninterruptibly();
    }

    /**
     * A client interceptor that spends a random share of {@code latency} (0.5 to 1.5 of it) on each request of a
     * thread started here; other threads' requests (a test's set-up) take no virtual time.
     */
    ExecutionInterceptor network(Duration latency, long seed) {
        long micros = latency.toNanos() / 1000;
        Random random = new Random(seed);
        return new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                travel();
            }

            @Override
            public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
                travel();
            }

            private void travel() {
                if (mine.get()) {
                    sleepUntil(now() + micros / 4 + random.nextLong(micros / 2 + 1));
                }
            }
        };
    }

    private Semaphore enqueue(long atMicros) {
        Semaphore go = new Semaphore(0);
        due.add(new Waiter(Math.max(atMicros, nowMicros), order++, go));
        return go;
    }

    private void next() {
        Waiter next = due.poll();
        if (next == null) {
            if (running == 0) {
                finished.release();
            }
            return;
        }
        nowMicros = next.atMicros;
        clock.set(start.plusNanos(nowMicros * 1000));
        next.go.release();
    }
}
