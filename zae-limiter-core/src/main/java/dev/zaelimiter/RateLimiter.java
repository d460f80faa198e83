package dev.zaelimiter;

import dev.zaelimiter.internal.Identifiers;
import dev.zaelimiter.internal.algorithm.BucketMath;
import dev.zaelimiter.store.BucketState;
import dev.zaelimiter.internal.resolution.ConfigResolver;
import dev.zaelimiter.internal.resolution.Resolution;
import dev.zaelimiter.store.AcquireResult;
import dev.zaelimiter.store.BucketDebit;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.BucketSnapshot;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.ConfigSnapshot;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

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
 */
public final class RateLimiter {

    private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);

    private final LimiterStore store;
    private final Clock clock;
    private final Unavailable onUnavailable;
    private final RateLimiterAdmin admin;
    private final RateLimiterListener listener;
    private final WaitQueues waiting;
    private final CircuitBreaker breaker;

    private RateLimiter(Builder builder) {
        this.store = builder.store != null ? builder.store : new InMemoryStore();
        this.clock = builder.clock;
        this.onUnavailable = builder.onUnavailable;
        this.listener = builder.listener;
        this.waiting = new WaitQueues(clock, builder.sleeper, builder.maxQueue, builder.jitter);
        this.admin = new RateLimiterAdmin(store);
        this.breaker = builder.breakerEnabled
                ? CircuitBreaker.of(builder.failureThreshold, builder.coolDown, clock)
                : CircuitBreaker.disabled(clock);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Consumes {@code consume} (tokens per limit name) for {@code entityId} on {@code resource}, or raises. */
    public Lease acquire(String entityId, String resource, Map<String, Long> consume) {
        return acquire(AcquireRequest.of(entityId, resource).consume(consume));
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
        Objects.requireNonNull(request, "request");
        if (request.maxWait().isZero()) {
            return acquireOnce(request);
        }
        return waiting.acquire(new BucketKey(request.entityId(), request.resource()), request,
                () -> acquireOnce(request));
    }

    private Lease acquireOnce(AcquireRequest request) {
        long started = System.nanoTime();
        Plan plan;
        AcquireResult result;
        long now = clock.millis();
        try {
            Attempt attempt = breaker.call(() -> {
                Plan planned = plan(request, now);
                return new Attempt(planned, store.tryAcquire(planned.debits(), now));
            });
            plan = attempt.plan();
            result = attempt.result();
        } catch (ResourcePausedException e) {
            notify(request, Decision.Outcome.REJECTED, List.of(), started);
            throw e;
        } catch (StoreUnavailableException e) {
            Lease lease = degraded(e, request);
            notify(request, Decision.Outcome.DEGRADED, List.of(), started);
            return lease;
        }
        List<LimitStatus> statuses = statuses(plan, result.buckets(), result.admitted());
        if (!result.admitted()) {
            notify(request, Decision.Outcome.REJECTED, statuses, started);
            RateLimitExceededException rejected = new RateLimitExceededException(statuses);
            throw slotsRefused(plan, statuses) ? rejected.waitingForSlots() : rejected;
        }
        notify(request, plan.primaryBypassed() ? Decision.Outcome.BYPASSED : Decision.Outcome.ADMITTED, statuses,
                started);
        return new DefaultLease(this, plan.debits(), plan.primaryDebits(), plan.primary(), statuses);
    }

    /** A plan and what the store made of it. */
    private record Attempt(Plan plan, AcquireResult result) {
    }

    /** A plan and its buckets as they are. */
    private record Peek(Plan plan, List<BucketSnapshot> snapshots) {
    }

    /** Whether a concurrency limit is among the violations. */
    private static boolean slotsRefused(Plan plan, List<LimitStatus> statuses) {
        for (LimitStatus status : statuses) {
            if (status.exceeded()) {
                for (BucketDebit debit : plan.debits()) {
                    if (debit.key().entityId().equals(status.entityId())) {
                        for (Limit limit : debit.limits()) {
                            if (limit.name().equals(status.limitName()) && limit.isConcurrency()) {
                                return true;
                            }
                        }
                    }
                }
            }
        }
        return false;
    }

    private void notify(AcquireRequest request, Decision.Outcome outcome, List<LimitStatus> statuses, long started) {
        if (listener != null) {
            try {
                listener.onDecision(new Decision(request.entityId(), request.resource(), outcome, statuses,
                        Duration.ofNanos(System.nanoTime() - started)));
            } catch (RuntimeException e) {
                log.warn("rate limiter listener failed", e);
            }
        }
    }

    /**
     * Acquires, runs {@code callable}, and closes the lease; when {@code callable} throws, rolls the lease back and
     * rethrows. The callable's exception always reaches the caller: when the rollback fails too (the store is down
     * under {@link Unavailable#BLOCK}), that failure is attached to it as {@linkplain Throwable#getSuppressed()
     * suppressed}.
     */
    public <T> T call(AcquireRequest request, Callable<T> callable) throws Exception {
        Objects.requireNonNull(callable, "callable");
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
        Objects.requireNonNull(request, "request");
        try {
            long now = clock.millis();
            Peek peek = breaker.call(() -> {
                Plan planned = plan(request, now);
                return new Peek(planned, store.peek(planned.debits(), now));
            });
            Plan plan = peek.plan();
            List<LimitStatus> statuses = statuses(plan, peek.snapshots(), false);
            Duration wait = Duration.ZERO;
            boolean allowed = true;
            for (LimitStatus status : statuses) {
                if (status.exceeded()) {
                    allowed = false;
                    wait = wait.compareTo(status.retryAfter()) >= 0 ? wait : status.retryAfter();
                }
            }
            return new Availability(allowed, plan.primaryBypassed(), wait, statuses);
        } catch (ResourcePausedException e) {
            return new Availability(false, false, e.retryAfter(), List.of());
        } catch (StoreUnavailableException e) {
            if (onUnavailable == Unavailable.BLOCK) {
                throw e;
            }
            logUnavailable(log, e, "store unavailable, reporting {} as available: {}", request, e.getMessage());
            return new Availability(true, false, Duration.ZERO, List.of());
        }
    }

    /** Whole tokens available now per limit of {@code entityId} on {@code resource} (negative in debt). */
    public Map<String, Long> available(String entityId, String resource) {
        long now = clock.millis();
        Peek peek = breaker.call(() -> {
            Plan planned = plan(AcquireRequest.of(entityId, resource), NO_PAUSE_CHECK);
            return new Peek(planned, store.peek(List.of(planned.debits().get(0)), now));
        });
        BucketDebit primary = peek.plan().debits().get(0);
        BucketState state = peek.snapshots().get(0).state();
        Map<String, Long> available = new LinkedHashMap<>();
        for (Limit limit : primary.limits()) {
            available.put(limit.name(), Math.floorDiv(state.balanceMilli(limit.name()), Limit.MILLI));
        }
        return available;
    }

    /**
     * The configuration in force for {@code entityId} on {@code resource} and every limit's state now, for operators
     * (the actuator endpoint). Writes nothing.
     */
    public BucketView inspect(String entityId, String resource) {
        String id = Identifiers.entityId("entityId", entityId);
        String res = Identifiers.resource("resource", resource);
        ConfigSnapshot snapshot = store.loadConfig(id, res);
        Resolution resolution = ConfigResolver.resolve(snapshot, null);
        long now = clock.millis();
        BucketDebit debit = new BucketDebit(new BucketKey(id, res), resolution.limits(), Map.of(), false,
                resolution.source().isDefault());
        BucketState state = resolution.limits().isEmpty() ? null : store.peek(List.of(debit), now).get(0).state();
        List<LimitView> views = new ArrayList<>();
        for (Limit limit : resolution.limits()) {
            Limit.Parameters p = limit.parametersAt(now);
            var limitState = state.limits().get(limit.name());
            long available = Math.floorDiv(state.balanceMilli(limit.name()), Limit.MILLI);
            long reset = limit.nextResetAfter(now);
            String window = null;
            for (ScheduleEntry entry : limit.schedule()) {
                if (entry.pattern().matches(Instant.ofEpochMilli(now), entry.zone())) {
                    window = entry.cron();
                    break;
                }
            }
            if (reset == Limit.NEVER && limitState != null && limitState.inWindow()) {
                reset = limitState.windowStartMillis() + limit.resetAfter().orElseThrow().toMillis();
            }
            views.add(new LimitView(limit.name(), p.capacityMilli() / Limit.MILLI, available,
                    p.refillAmountMilli() / Limit.MILLI, p.drips() ? Duration.ofMillis(p.refillPeriodMillis()) : null,
                    limit.isSoft(), limit.isSoft() && available < 0, window,
                    reset == Limit.NEVER ? null : Instant.ofEpochMilli(reset),
                    limitState == null ? 0 : limitState.consumedMilli() / Limit.MILLI));
        }
        long paused = pausedUntil(snapshot);
        return new BucketView(id, res, snapshot.entity(), resolution.source().name(), resolution.disabled(),
                resolution.parentId(), paused > now ? Instant.ofEpochMilli(paused) : null, views);
    }

    /**
     * Pauses every call on {@code resource} for {@code duration}, in every process sharing the store: a call made
     * before the pause ends raises {@link ResourcePausedException}. Other processes see the pause when they next read
     * configuration (within {@code stampTtl} on DynamoDB); this one at once.
     *
     * @return when the pause ends
     */
    public Instant pause(String resource, Duration duration) {
        return pauseUntil(ConfigScope.resource(Identifiers.resource("resource", resource)), duration);
    }

    /** Pauses the calls of {@code entityId} on {@code resource} for {@code duration}, as {@link #pause(String, Duration)}. */
    public Instant pause(String resource, String entityId, Duration duration) {
        return pauseUntil(ConfigScope.entity(Identifiers.entityId("entityId", entityId),
                Identifiers.resource("resource", resource)), duration);
    }

    /**
     * Pauses as an upstream {@code Retry-After} header asks: a number of seconds (one too large to represent
     * counts as 2^31 seconds) or an HTTP date in any of the three formats RFC 9110 has recipients read
     * (IMF-fixdate, RFC 850, asctime). With a {@code null} {@code entityId} the whole resource pauses.
     *
     * @return when the pause ends, or empty when the value asks for no wait
     * @throws ValidationException when {@code retryAfter} is neither
     */
    public Optional<Instant> pauseFromRetryAfter(String resource, String entityId, String retryAfter) {
        Duration wait = RetryAfter.parse(retryAfter, clock.instant());
        if (wait.isZero() || wait.isNegative()) {
            return Optional.empty();
        }
        return Optional.of(entityId == null ? pause(resource, wait) : pause(resource, entityId, wait));
    }

    /** Ends a pause of {@code resource} early. */
    public void resume(String resource) {
        store.putPause(ConfigScope.resource(Identifiers.resource("resource", resource)), null);
    }

    /** Ends a pause of {@code entityId} on {@code resource} early. */
    public void resume(String resource, String entityId) {
        store.putPause(ConfigScope.entity(Identifiers.entityId("entityId", entityId),
                Identifiers.resource("resource", resource)), null);
    }

    private Instant pauseUntil(ConfigScope scope, Duration duration) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new ValidationException("duration", duration, "a pause lasts more than zero");
        }
        Instant until;
        try {
            until = clock.instant().plus(duration);
            until.toEpochMilli();
        } catch (ArithmeticException | DateTimeException e) {
            throw new ValidationException("duration", duration, "a pause must end at an instant that epoch"
                    + " milliseconds can hold (within about 292 million years)");
        }
        store.putPause(scope, until.toEpochMilli());
        return until;
    }

    private static long pausedUntil(ConfigSnapshot snapshot) {
        Long entity = snapshot.entityResource().pausedUntil();
        Long resource = snapshot.resource().pausedUntil();
        return Math.max(entity == null ? Long.MIN_VALUE : entity, resource == null ? Long.MIN_VALUE : resource);
    }

    /** Entities, configuration levels and switches of the store this limiter uses. */
    public RateLimiterAdmin admin() {
        return admin;
    }

    public Clock clock() {
        return clock;
    }

    public LimiterStore store() {
        return store;
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
     * Logs a store failure that the {@link Unavailable#ALLOW} policy absorbs: a warning, or a debug line when the
     * circuit breaker refused the call (it logged once when it opened; a warning per call would flood the log).
     */
    static void logUnavailable(Logger log, StoreUnavailableException e, String format, Object... args) {
        if (e instanceof CircuitBreaker.OpenException) {
            log.debug(format, args);
        } else {
            log.warn(format, args);
        }
    }

    /** Runs a store call of a lease through the circuit breaker. */
    <T> T guarded(Supplier<T> storeCall) {
        return breaker.call(storeCall);
    }

    Unavailable onUnavailable() {
        return onUnavailable;
    }

    /** How many calls of this process wait for {@code entityId} on {@code resource} now. */
    int waiting(String entityId, String resource) {
        return waiting.waiting(new BucketKey(entityId, resource));
    }

    /** Capacity of {@code key} was given back in this process: wake its waiters. */
    void released(BucketKey key) {
        waiting.released(key);
    }

    private Lease degraded(StoreUnavailableException e, AcquireRequest request) {
        if (onUnavailable == Unavailable.BLOCK) {
            throw e;
        }
        logUnavailable(log, e, "store unavailable, admitting {} without recording it: {}", request, e.getMessage());
        return DefaultLease.unrecorded();
    }

    // ---- planning: validation and resolution, before anything is written

    /**
     * The debits one call makes (the first {@code primaryDebits} of them for the first target: its entity and
     * parent), the first target's resolution, and whether it is bypassed.
     */
    record Plan(List<BucketDebit> debits, int primaryDebits, Resolution primary, boolean primaryBypassed) {
    }

    /** Passed as {@code now} to {@link #plan} by reads that report balances whether or not a pause is on. */
    private static final long NO_PAUSE_CHECK = Long.MAX_VALUE;

    /** The debits of {@code request}; raises when it is invalid or paused at {@code now}. */
    private Plan plan(AcquireRequest request, long now) {
        List<Limit> override = request.limits() == null ? null : Limit.validateLevel("limits", request.limits());
        Map<BucketKey, BucketDebit> debits = new LinkedHashMap<>();
        String leaseId = LeaseIds.next();
        Resolution primary = target(request.entityId(), request.resource(), request.consume(), override, now, leaseId,
                debits);
        int primaryDebits = debits.size();
        for (AcquireRequest.Target other : request.also()) {
            target(other.entityId(), other.resource(), other.consume(), null, now, leaseId, debits);
        }
        return new Plan(List.copyOf(debits.values()), primaryDebits, primary,
                primary.disabled() == DisabledMode.BYPASS);
    }

    /**
     * Adds the debits of one target (its entity and, when it cascades, its parent) to {@code debits}, merging the
     * amounts of a bucket that an earlier target already debits, and returns the target's resolution.
     */
    private Resolution target(String entity, String res, Map<String, Long> consume, List<Limit> override, long now,
            String leaseId, Map<BucketKey, BucketDebit> debits) {
        String entityId = Identifiers.entityId("entityId", entity);
        String resource = Identifiers.resource("resource", res);
        Map<String, Long> amounts = validateAmounts(consume);
        ConfigSnapshot snapshot = store.loadConfig(entityId, resource);
        long pausedUntil = pausedUntil(snapshot);
        if (pausedUntil > now) {
            throw new ResourcePausedException(entityId, resource, Instant.ofEpochMilli(pausedUntil),
                    Duration.ofMillis(pausedUntil - now));
        }
        Resolution resolution = ConfigResolver.resolve(snapshot, override);
        merge(debits, debit(entityId, resource, resolution, amounts, true, leaseId));
        if (resolution.cascades()) {
            Resolution parent = ConfigResolver.resolve(store.loadConfig(resolution.parentId(), resource), null);
            if (!parent.limits().isEmpty()) {
                merge(debits, debit(resolution.parentId(), resource, parent, amounts, false, leaseId));
            } else if (parent.disabled() == DisabledMode.DISABLED) {
                throw new ResourceDisabledException(resolution.parentId(), resource);
            }
        }
        return resolution;
    }

    /**
     * Adds {@code debit} to {@code debits}, summing the amounts of a bucket that another target already debits. The
     * sum for one limit is bounded like a single amount, so that it can neither wrap nor exceed what a store holds.
     */
    private static void merge(Map<BucketKey, BucketDebit> debits, BucketDebit debit) {
        debits.merge(debit.key(), debit, (first, second) -> {
            Map<String, Long> sum = new HashMap<>(first.amountsMilli());
            second.amountsMilli().forEach((name, amount) -> {
                long total = sum.merge(name, amount, BucketMath::saturatedAdd);
                if (total > Limit.MAX_TOKENS * Limit.MILLI) {
                    throw new ValidationException("consume." + name, total / Limit.MILLI, "the amounts that one"
                            + " call's targets take from one limit of " + debit.key().entityId() + " on "
                            + debit.key().resource() + " add up to at most " + Limit.MAX_TOKENS);
                }
            });
            return first.withAmounts(sum);
        });
    }

    /**
     * The debit of one entity. The primary entity must have every limit the call names; a cascade parent is debited
     * on the limits it shares with the call. An amount above a hard limit's capacity could never be admitted; soft
     * limits and bypassed entities never consult the capacity, so they take any amount. Every concurrency limit
     * the call does not name takes one slot for {@code leaseId}.
     */
    private static BucketDebit debit(String entityId, String resource, Resolution resolution, Map<String, Long> amounts,
            boolean primary, String leaseId) {
        if (resolution.disabled() == DisabledMode.DISABLED) {
            throw new ResourceDisabledException(entityId, resource);
        }
        if (resolution.limits().isEmpty()) {
            throw new NoLimitsConfiguredException(entityId, resource);
        }
        Map<String, Long> amountsMilli = new HashMap<>(amounts.size() * 2);
        for (Map.Entry<String, Long> e : amounts.entrySet()) {
            Limit limit = resolution.limit(e.getKey());
            if (limit == null) {
                if (primary) {
                    throw new UnknownLimitException(entityId, resource, e.getKey(),
                            resolution.limits().stream().map(Limit::name).toList());
                }
                continue;
            }
            long amountMilli = e.getValue() * Limit.MILLI;
            if (amountMilli > limit.maxCapacityMilli() && !limit.isSoft()
                    && resolution.disabled() != DisabledMode.BYPASS) {
                throw new UnsatisfiableRequestException(entityId, resource, limit.name(),
                        limit.maxCapacityMilli() / Limit.MILLI, e.getValue());
            }
            if (limit.isConcurrency() && e.getValue() > 1) {
                throw new ValidationException("consume." + e.getKey(), e.getValue(), "a call takes one slot of a"
                        + " concurrency limit (or 0 to take none)");
            }
            amountsMilli.put(e.getKey(), amountMilli);
        }
        for (Limit limit : resolution.limits()) {
            if (limit.isConcurrency() && !amounts.containsKey(limit.name())) {
                amountsMilli.put(limit.name(), Limit.MILLI);
            }
        }
        return new BucketDebit(new BucketKey(entityId, resource), resolution.bucketLimits(), amountsMilli,
                resolution.disabled() == DisabledMode.BYPASS, resolution.source().isDefault(), leaseId);
    }

    static Map<String, Long> validateAmounts(Map<String, Long> consume) {
        for (Map.Entry<String, Long> e : consume.entrySet()) {
            Identifiers.limitName("consume", e.getKey());
            Long amount = e.getValue();
            if (amount == null || amount < 0) {
                throw new ValidationException("consume." + e.getKey(), amount, "an amount is zero or more");
            }
            if (amount > Limit.MAX_TOKENS) {
                throw new ValidationException("consume." + e.getKey(), amount, "an amount is at most "
                        + Limit.MAX_TOKENS);
            }
        }
        return consume;
    }

    static List<LimitStatus> statuses(Plan plan, List<BucketSnapshot> snapshots, boolean admitted) {
        List<LimitStatus> statuses = new ArrayList<>();
        for (int i = 0; i < plan.debits().size(); i++) {
            BucketDebit debit = plan.debits().get(i);
            BucketState state = snapshots.get(i).state();
            for (Limit limit : debit.limits()) {
                long amount = debit.amountsMilli().getOrDefault(limit.name(), 0L);
                long balance = state.balanceMilli(limit.name());
                boolean exceeded = !admitted && !debit.countOnly() && !limit.isSoft() && amount > 0
                        && balance < amount;
                long wait = exceeded ? state.retryAfterMillis(limit, amount) : 0;
                statuses.add(new LimitStatus(debit.key().entityId(), debit.key().resource(), limit.name(),
                        limit.parametersAt(state.lastRefillMillis()).capacityMilli() / Limit.MILLI,
                        Math.floorDiv(balance, Limit.MILLI), amount / Limit.MILLI, exceeded,
                        limit.isSoft(), Duration.ofMillis(wait)));
            }
        }
        return statuses;
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

        private Builder() {
        }

        /**
         * Tests only: picks the jitter added to a computed wait, in milliseconds from zero to the spread it is given
         * (a tenth of the wait, at most a second). Random when not set.
         */
        Builder jitter(LongUnaryOperator jitter) {
            this.jitter = Objects.requireNonNull(jitter, "jitter");
            return this;
        }

        /**
         * The {@link CircuitBreaker} around store calls: after {@code failureThreshold} store failures in a row,
         * decisions apply the {@linkplain #onUnavailable unavailability policy} without calling the store for
         * {@code coolDown} (on the limiter's clock), then one call probes the store. On by default, with
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
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
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
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** The store; an {@link InMemoryStore} when not set. */
        public Builder store(LimiterStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** The clock every time computation goes through; the system UTC clock when not set. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** What to do when the store fails; {@link Unavailable#BLOCK} when not set. */
        public Builder onUnavailable(Unavailable onUnavailable) {
            this.onUnavailable = Objects.requireNonNull(onUnavailable, "onUnavailable");
            return this;
        }

        public RateLimiter build() {
            return new RateLimiter(this);
        }
    }
}
