package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.UsageStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.LongUnaryOperator;

/**
 * The entry point: admits or refuses calls against the limits of an entity on a resource. Thread-safe; build one per
 * store and share it.
 *
 * <pre>{@code
 * RateLimiter limiter = RateLimiter.builder().build();          // in-memory store, system clock
 * limiter.admin().setResourceDefaults("gpt-4", List.of(Limit.perMinute("rpm", 100)));
 * try (Lease lease = limiter.acquire("user-1", "gpt-4", Map.of("rpm", 1L))) {
 *     // call the model
 * }
 * }</pre>
 *
 * <p>Each call validates its input, reads the configuration levels of the entity (one store call), resolves them,
 * and hands the store one all-or-nothing debit covering the entity and, when it cascades, its parent.
 *
 * <p>The facade users read, with its documented builder; the work is in Decider (one decision), RequestPlanner
 * (planning), UnavailablePolicy (store failures), LeaseWrites and DefaultLease (leases), WaitQueues (waiting),
 * Pauses and Inspection.
 */
public final class RateLimiter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);

    private final LimiterStore store;
    private final Clock clock;
    private final RateLimiterAdmin admin;
    private final WaitQueues waiting;
    private final CircuitBreaker breaker;
    private final Decider decider;
    private final Peeks peeks;
    private final UsageRecorder usage;
    private final Pauses pauses;

    private RateLimiter(Builder builder) {
        this.store = builder.store != null ? builder.store : new InMemoryStore();
        this.clock = builder.clock;
        UnavailablePolicy unavailable = UnavailablePolicy.of(builder.onUnavailable);
        this.waiting = new WaitQueues(clock, builder.sleeper, builder.maxQueue, builder.jitter);
        UsageStore history = builder.usageHistory ? capability("usage history", store::usage) : null;
        this.usage = history != null
                ? new UsageRecorder(history, capability("in-place decisions", store::inPlaceBuckets), clock,
                        builder.usageFlushInterval)
                : null;
        AuditLog audit = new AuditLog(capability("audit log", store::audit), clock, builder.actor);
        this.admin = new RateLimiterAdmin(store, usage, audit, clock);
        this.pauses = new Pauses(store, clock, admin, audit);
        this.breaker = builder.breakerEnabled
                ? CircuitBreaker.of(builder.failureThreshold, builder.coolDown, clock)
                : CircuitBreaker.disabled(clock);
        LeaseWrites leaseWrites = new LeaseWrites(store, clock, breaker, unavailable, waiting, usage);
        this.decider = new Decider(store, clock, unavailable, leaseWrites, builder.listener, breaker, usage,
                capability("in-place decisions", store::inPlaceBuckets));
        this.peeks = new Peeks(store, clock, breaker, decider.planner(), unavailable);
    }

    /** The usage flush interval when none is set, in seconds. */
    public static final int DEFAULT_USAGE_FLUSH_SECONDS = 10;
    private static final Duration DEFAULT_USAGE_FLUSH_INTERVAL = Duration.ofSeconds(DEFAULT_USAGE_FLUSH_SECONDS);

    /** What a store offers beyond buckets; none when asking fails (a store that is all failures, in tests). */
    private static <T> T capability(String what, java.util.function.Supplier<T> offered) {
        try {
            return offered.get();
        } catch (RuntimeException e) {
            log.warn("store offers no {}: {}", what, e.toString());
            return null;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Consumes {@code consume} (tokens per limit name) for {@code entityId} on {@code resource}, or raises. */
    public Lease acquire(String entityId, String resource, Map<String, Long> consume) {
        if (!AcquireRequest.keepsAsGiven(consume)) {
            return acquire(AcquireRequest.of(entityId, resource, consume));
        }
        return leaseOrRaise(decider.attemptOnce(null, entityId, resource, consume, true));
    }

    /**
     * The lease {@link Decider#attemptOnce} decided, or the refusal it made, raised. Raised here rather than where it
     * was decided, so that a caller that catches it right away (a benchmark, a loop of retries) may have the throw
     * compiled into a jump.
     */
    private static Lease leaseOrRaise(Object decided) {
        if (decided instanceof Lease lease) {
            return lease;
        }
        throw decided instanceof RateLimitExceededException refused ? refused : ((Refusal) decided).exception();
    }

    /**
     * Consumes what {@code request} asks, all or nothing, across the entity and its parent when it cascades.
     *
     * @throws RateLimitExceededException     when a hard limit lacks the tokens; nothing is consumed
     * @throws UnsatisfiableRequestException  when an amount exceeds a limit's capacity
     * @throws ResourceDisabledException      when the resource is disabled for the entity or its cascade parent
     * @throws NoLimitsConfiguredException    when no level defines limits
     * @throws ValidationException            for malformed input
     * @throws StoreUnavailableException      when the store fails and the policy is {@link Unavailable#BLOCK}
     */
    public Lease acquire(AcquireRequest request) {
        Arguments.required("request", request);
        if (request.maxWait().isZero()) {
            return acquireOnce(request);
        }
        return waiting.acquire(new BucketKey(request.entityId(), request.resource()), request,
                horizon -> leaseOrRaise(decider.attemptOnce(request, request.entityId(), request.resource(),
                        request.consume(), true, horizon)));
    }

    /** As {@link #tryAcquire(AcquireRequest)}: {@code consume} (tokens per limit name) for the entity on the resource. */
    public Attempt tryAcquire(String entityId, String resource, Map<String, Long> consume) {
        if (!AcquireRequest.keepsAsGiven(consume)) {
            return tryAcquire(AcquireRequest.of(entityId, resource, consume));
        }
        try {
            return (Attempt) decider.attemptOnce(null, entityId, resource, consume, false);
        } catch (RateLimitExceededException e) {
            return Refusal.of(e);
        }
    }

    /**
     * As {@link #acquire(AcquireRequest)}, but a refusal is answered rather than raised: the attempt is the lease
     * when the call is admitted, and otherwise says when to retry and why (its {@link Attempt#lease()} raises what
     * {@code acquire} would have). A paused resource is a refusal too. What is not a refusal (invalid input, a
     * disabled resource, no limits, the store unavailable under {@link Unavailable#BLOCK}) raises as in
     * {@code acquire}. Cheaper than catching {@link RateLimitExceededException} where refusals are common: a refusal
     * builds its statuses only when they are read.
     */
    public Attempt tryAcquire(AcquireRequest request) {
        Arguments.required("request", request);
        try {
            return request.maxWait().isZero() ? (Attempt) decider.attemptOnce(request, request.entityId(),
                    request.resource(), request.consume(), false) : acquire(request);
        } catch (RateLimitExceededException e) {
            return Refusal.of(e);
        }
    }

    private Lease acquireOnce(AcquireRequest request) {
        return leaseOrRaise(decider.attemptOnce(request, request.entityId(), request.resource(), request.consume(), true));
    }


    /**
     * Acquires, runs {@code callable}, and closes the lease; when {@code callable} throws, rolls the lease back and
     * rethrows. The callable's exception always reaches the caller: when the rollback fails too (the store is down
     * under {@link Unavailable#BLOCK}), that failure is attached to it as {@linkplain Throwable#getSuppressed()
     * suppressed}.
     */
    public <T> T call(AcquireRequest request, Callable<T> callable) throws Exception {
        Arguments.required("callable", callable);
        Lease lease = acquire(request);
        T result;
        try {
            result = callable.call();
        } catch (Throwable t) {
            try {
                lease.rollback();
            } catch (Throwable rollbackFailure) {
                if (rollbackFailure != t) {
                    t.addSuppressed(rollbackFailure);
                }
            }
            throw t;
        }
        lease.close();
        return result;
    }

    /** Whether {@code consume} would be admitted now. Never consumes. */
    public Availability checkAvailability(String entityId, String resource, Map<String, Long> consume) {
        return checkAvailability(AcquireRequest.of(entityId, resource).consume(consume));
    }

    /** Whether {@code request} would be admitted now. Never consumes. */
    public Availability checkAvailability(AcquireRequest request) {
        Arguments.required("request", request);
        return peeks.availability(request);
    }

    /** Whole tokens available now per limit of {@code entityId} on {@code resource} (negative in debt). */
    public Map<String, Long> available(String entityId, String resource) {
        return peeks.available(entityId, resource);
    }

    /**
     * The configuration in force for {@code entityId} on {@code resource} and every limit's state now, for operators
     * (the actuator endpoint). Writes nothing.
     */
    public BucketView inspect(String entityId, String resource) {
        return Inspection.inspect(store, clock, entityId, resource);
    }

    /**
     * Pauses every call on {@code resource} for {@code duration}, in every process sharing the store: a call made
     * before the pause ends raises {@link ResourcePausedException}. Other processes see the pause when they next read
     * configuration (within {@code stampTtl} on DynamoDB); this one at once.
     *
     * @return when the pause ends
     */
    public Instant pause(String resource, Duration duration) {
        return pauses.pause(Pauses.of(resource), duration);
    }

    /**
     * Pauses the calls of {@code entityId} on {@code resource} for {@code duration}, as
     * {@link #pause(String, Duration)}. Like every other call, it takes the entity first.
     */
    public Instant pause(String entityId, String resource, Duration duration) {
        return pauses.pause(Pauses.of(entityId, resource), duration);
    }

    /**
     * Pauses {@code resource} as an upstream {@code Retry-After} header asks: a number of seconds (one too large to
     * represent counts as 2^31 seconds) or an HTTP date in any of the three formats RFC 9110 has recipients read
     * (IMF-fixdate, RFC 850, asctime). The pause is an automatic one: its audit event names the actor
     * {@code upstream}, not whoever is signed in.
     *
     * @return when the pause ends, or empty when the value asks for no wait
     * @throws ValidationException when {@code retryAfter} is neither
     */
    public Optional<Instant> pauseFromRetryAfter(String resource, String retryAfter) {
        return pauses.pauseFromRetryAfter(() -> Pauses.of(resource), retryAfter);
    }

    /**
     * Pauses {@code entityId} on {@code resource} as an upstream {@code Retry-After} header asks, as
     * {@link #pauseFromRetryAfter(String, String)}.
     */
    public Optional<Instant> pauseFromRetryAfter(String entityId, String resource, String retryAfter) {
        return pauses.pauseFromRetryAfter(() -> Pauses.of(entityId, resource), retryAfter);
    }

    /**
     * Pauses {@code resource} for {@code duration} because an upstream provider asked for a break (a wait the caller
     * already read from its answer), as {@link #pause(String, Duration)}; its audit event names the actor
     * {@code upstream}, not whoever is signed in.
     */
    public Instant pauseForUpstream(String resource, Duration duration) {
        return pauses.pauseForUpstream(Pauses.of(resource), duration);
    }

    /** Pauses {@code entityId} on {@code resource} because an upstream provider asked for a break. */
    public Instant pauseForUpstream(String entityId, String resource, Duration duration) {
        return pauses.pauseForUpstream(Pauses.of(entityId, resource), duration);
    }

    /** Ends a pause of {@code resource} early. */
    public void resume(String resource) {
        pauses.resume(Pauses.of(resource));
    }

    /** Ends a pause of {@code entityId} on {@code resource} early. */
    public void resume(String entityId, String resource) {
        pauses.resume(Pauses.of(entityId, resource));
    }

    /** Entities, configuration levels and switches of the store this limiter uses. */
    public RateLimiterAdmin admin() {
        return admin;
    }

    public Clock clock() {
        return clock;
    }

    /** The store this limiter runs on (for stores' own tools; decisions go through this limiter). */
    public LimiterStore store() {
        return store;
    }

    /**
     * Asks the store one cheap question (the system configuration level), whatever the circuit breaker's state, for
     * health checks: returns when the store answered.
     *
     * @throws StoreUnavailableException when it did not
     */
    public void probe() {
        store.getLevel(ConfigScope.system());
    }

    /**
     * The circuit breaker around this limiter's store calls: its state, for health checks and metrics. Each decision
     * ({@code acquire}, {@code checkAvailability}, {@code available}: the configuration read and the bucket write or
     * read together) and each lease write goes through it as one call; admin operations and {@code inspect} always
     * call the store.
     */
    public CircuitBreaker circuitBreaker() {
        return breaker;
    }

    /**
     * Sends the usage this process counted and has not written yet to the store's history now (it is sent every
     * flush interval anyway). Does nothing when the store keeps no history.
     *
     * @throws StoreUnavailableException when the store could not be written; the counts are kept and sent again
     */
    public void flushUsage() {
        if (usage != null) {
            usage.flush();
        }
    }

    /**
     * Stops the background usage flush and writes what this process counted and has not written yet. The limiter
     * still decides calls afterwards, but no longer writes their usage by itself. Does not close the store.
     */
    @Override
    public void close() {
        if (usage != null) {
            usage.close();
        }
    }

    /** How many calls of this process wait for {@code entityId} on {@code resource} now. */
    int waiting(String entityId, String resource) {
        return waiting.waiting(new BucketKey(entityId, resource));
    }

    /** Configures a {@link RateLimiter}. */
    public static final class Builder {

        private LimiterStore store;
        private Clock clock = Clock.systemUTC();
        private Unavailable onUnavailable = Unavailable.BLOCK;
        private RateLimiterListener listener;
        private Sleeper sleeper;
        private int maxQueue = 100;
        private LongUnaryOperator jitter = WaitQueues::randomJitter;
        private boolean breakerEnabled = true;
        private int failureThreshold = CircuitBreaker.DEFAULT_FAILURE_THRESHOLD;
        private Duration coolDown = CircuitBreaker.DEFAULT_COOL_DOWN;
        private boolean usageHistory = true;
        private Duration usageFlushInterval = DEFAULT_USAGE_FLUSH_INTERVAL;
        private java.util.function.Supplier<String> actor = () -> AuditLog.DEFAULT_ACTOR;

        private Builder() {
        }

        /**
         * Tests only: picks the jitter added to a computed wait, in milliseconds from zero to the spread it is given
         * (a tenth of the wait, at most a second). Random when not set.
         */
        Builder jitter(LongUnaryOperator jitter) {
            this.jitter = Arguments.required("jitter", jitter);
            return this;
        }

        /**
         * The {@link CircuitBreaker} around store calls: when the store kept failing for a whole {@code coolDown}
         * (at least {@code failureThreshold} failed calls, and at least half of the calls), decisions apply the
         * {@linkplain #onUnavailable unavailability policy} without calling the store for {@code coolDown} (on the
         * limiter's clock), then one call probes the store. On by default, with
         * {@value CircuitBreaker#DEFAULT_FAILURE_THRESHOLD} failures and a 2 s cool-down.
         *
         * @throws ValidationException when {@code failureThreshold} is below 1 or {@code coolDown} under 1 ms
         */
        public Builder circuitBreaker(int failureThreshold, Duration coolDown) {
            CircuitBreaker.validate(failureThreshold, coolDown);
            this.breakerEnabled = true;
            this.failureThreshold = failureThreshold;
            this.coolDown = coolDown;
            return this;
        }

        /** No circuit breaker: every decision calls the store, however often it failed before. */
        public Builder noCircuitBreaker() {
            this.breakerEnabled = false;
            return this;
        }

        /**
         * How calls wait for capacity when they allow it; by default the thread parks and a lease closing in this
         * process wakes it.
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Arguments.required("sleeper", sleeper);
            return this;
        }

        /** The most calls of this process that wait on one bucket at once; beyond, calls fail at once. 100 if unset. */
        public Builder maxQueue(int maxQueue) {
            if (maxQueue < 1) {
                throw new ValidationException("maxQueue", maxQueue, "at least one waiter");
            }
            this.maxQueue = maxQueue;
            return this;
        }

        /** Observes every decision (metrics, logs); none when not set. */
        public Builder listener(RateLimiterListener listener) {
            this.listener = Arguments.required("listener", listener);
            return this;
        }

        /** The store; an {@link InMemoryStore} when not set. */
        public Builder store(LimiterStore store) {
            this.store = Arguments.required("store", store);
            return this;
        }

        /** The clock every time computation goes through; the system UTC clock when not set. */
        public Builder clock(Clock clock) {
            this.clock = Arguments.required("clock", clock);
            return this;
        }

        /** What to do when the store fails; {@link Unavailable#BLOCK} when not set. */
        public Builder onUnavailable(Unavailable onUnavailable) {
            this.onUnavailable = Arguments.required("onUnavailable", onUnavailable);
            return this;
        }

        /**
         * How often this process writes the usage it counted to the store's history: every period (hour and day) of
         * a bucket with new counts gets one write per flush. {@value #DEFAULT_USAGE_FLUSH_SECONDS} s when not set;
         * {@link Duration#ZERO} writes only on {@link RateLimiter#flushUsage()} and {@link RateLimiter#close()}.
         *
         * @throws ValidationException when negative, or above zero and under 100 ms
         */
        public Builder usageFlushInterval(Duration interval) {
            if (interval == null || interval.isNegative()
                    || (!interval.isZero() && interval.compareTo(Duration.ofMillis(100)) < 0)) {
                throw new ValidationException("usageFlushInterval", interval, "zero (flush on demand) or at least"
                        + " 100 ms");
            }
            this.usageFlushInterval = interval;
            this.usageHistory = true;
            return this;
        }

        /** Records no usage history (the store's history stays as it is). */
        public Builder noUsageHistory() {
            this.usageHistory = false;
            return this;
        }

        /**
         * Who the audit log names for changes made through this limiter, asked at each change (for example the
         * principal of the current request); {@value AuditLog#DEFAULT_ACTOR} when not set, or when it answers
         * {@code null} or blank.
         */
        public Builder actor(java.util.function.Supplier<String> actor) {
            this.actor = Arguments.required("actor", actor);
            return this;
        }

        public RateLimiter build() {
            return new RateLimiter(this);
        }
    }
}
