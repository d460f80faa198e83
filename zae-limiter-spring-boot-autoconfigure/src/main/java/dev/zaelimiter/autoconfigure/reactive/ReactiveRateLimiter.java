package dev.zaelimiter.autoconfigure.reactive;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Lease;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * A {@link RateLimiter} for reactive code: every call returns a {@link Mono} that does nothing until subscribed, and
 * no call parks the subscribing thread. Store calls run on {@code storeScheduler} when the store does I/O (the
 * DynamoDB store), or inline when it does not (the in-memory store, whose short {@code synchronized} sections
 * BlockHound accepts). A request with a {@code maxWait} waits for capacity by scheduling its next attempt after a
 * delay instead of sleeping: the wait the rejection computed plus jitter (up to a tenth of it, at most a second, cut
 * to what is left), given up at once when the computed wait does not fit in what is left; concurrency slots are
 * re-checked every 250 ms. Unlike {@link RateLimiter#acquire}, the waiters of a bucket form no queue: there is no
 * priority among them, and a lease closing does not wake them early.
 */
public final class ReactiveRateLimiter {

    private static final Logger log = LoggerFactory.getLogger(ReactiveRateLimiter.class);
    private static final Duration SLOT_POLL = Duration.ofMillis(250);

    private final RateLimiter limiter;
    private final Scheduler storeScheduler;
    private final Function<Duration, Mono<?>> delay;
    private final LongUnaryOperator jitter;

    /**
     * @param storeScheduler where store calls run; {@code null} to run them on the subscribing thread
     * @param delay          a Mono that completes after the given duration without blocking (tests pass one that
     *                       advances their clock)
     */
    public ReactiveRateLimiter(RateLimiter limiter, Scheduler storeScheduler, Function<Duration, Mono<?>> delay) {
        this(limiter, storeScheduler, delay, spread -> ThreadLocalRandom.current().nextLong(spread + 1));
    }

    /** Tests only: {@code jitter} picks the jitter, in milliseconds from zero to the spread it is given. */
    ReactiveRateLimiter(RateLimiter limiter, Scheduler storeScheduler, Function<Duration, Mono<?>> delay,
            LongUnaryOperator jitter) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.storeScheduler = storeScheduler;
        this.delay = Objects.requireNonNull(delay, "delay");
        this.jitter = Objects.requireNonNull(jitter, "jitter");
    }

    /** Store calls inline when {@code storeDoesIo} is false, else on Reactor's bounded-elastic scheduler. */
    public static ReactiveRateLimiter of(RateLimiter limiter, boolean storeDoesIo) {
        return new ReactiveRateLimiter(limiter, storeDoesIo ? Schedulers.boundedElastic() : null,
                wait -> Mono.delay(wait, Schedulers.parallel()));
    }

    /** The limiter underneath. */
    public RateLimiter limiter() {
        return limiter;
    }

    /** Whether store calls leave the subscribing thread. */
    public boolean offloads() {
        return storeScheduler != null;
    }

    /**
     * Acquires at subscription, waiting up to the request's {@code maxWait} without blocking; errors as
     * {@link RateLimiter#acquire} throws.
     */
    public Mono<Lease> acquire(AcquireRequest request) {
        Objects.requireNonNull(request, "request");
        Duration maxWait = request.maxWait();
        if (maxWait.isZero()) {
            return leaseCall(() -> limiter.acquire(request));
        }
        AcquireRequest once = request.maxWait(Duration.ZERO);
        return Mono.defer(() -> attempt(once, limiter.clock().millis() + maxWait.toMillis()));
    }

    private Mono<Lease> attempt(AcquireRequest once, long deadline) {
        return leaseCall(() -> limiter.acquire(once)).onErrorResume(RateLimitExceededException.class, rejected -> {
            long left = deadline - limiter.clock().millis();
            boolean polling = rejected.waitsForSlots();
            long wait = polling ? Math.min(Math.max(left, 0), SLOT_POLL.toMillis()) : rejected.retryAfter().toMillis();
            if (left <= 0 || wait > left) {
                return Mono.error(rejected);
            }
            long sleep = polling ? wait : Math.min(left, wait + jitter(wait));
            return delay.apply(Duration.ofMillis(sleep)).then(Mono.defer(() -> attempt(once, deadline)));
        });
    }

    /** Up to a tenth of {@code wait} (at most a second) more, so that subscribers do not retry in step. */
    private long jitter(long wait) {
        long spread = Math.min(1000, wait / 10);
        return spread > 0 ? Math.max(0, Math.min(spread, jitter.applyAsLong(spread))) : 0;
    }

    /** Closes {@code lease} (keeping what it consumed) at subscription. */
    public Mono<Void> close(Lease lease) {
        return call(() -> {
            lease.close();
            return null;
        });
    }

    /** Rolls {@code lease} back (returning what it consumed) at subscription. */
    public Mono<Void> rollback(Lease lease) {
        return call(() -> {
            lease.rollback();
            return null;
        });
    }

    /**
     * An acquire as a store call whose lease, when the subscriber cancelled before it arrived, is rolled back instead of
     * being dropped with the tokens (and any concurrency slot) it holds.
     */
    private Mono<Lease> leaseCall(Supplier<Lease> acquire) {
        return call(acquire).doOnDiscard(Lease.class, ReactiveRateLimiter::rollbackUnwanted);
    }

    private static void rollbackUnwanted(Lease lease) {
        try {
            lease.rollback();
        } catch (RuntimeException e) {
            log.warn("could not give back a lease acquired for a cancelled subscriber: {}", e.toString());
        }
    }

    /**
     * Runs a store call at subscription, on the store scheduler when there is one. A cancelled subscriber does not
     * interrupt a store call in flight (an interrupted request would count as a store failure); what the call returns
     * after the cancellation is discarded through the subscriber's discard hook.
     */
    public <T> Mono<T> call(Supplier<T> storeCall) {
        if (storeScheduler == null) {
            return Mono.fromSupplier(storeCall);
        }
        return Mono.create(sink -> {
            try {
                storeScheduler.schedule(() -> {
                    T value;
                    try {
                        value = storeCall.get();
                    } catch (Throwable t) {
                        sink.error(t);
                        return;
                    }
                    sink.success(value);
                });
            } catch (RejectedExecutionException e) {
                sink.error(e);
            }
        });
    }
}
