package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiterAdmin;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.LimiterStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the application does to its store at startup: check or create the DynamoDB table
 * ({@code zae.limiter.dynamodb.create-table}), then apply the declarations. When the store cannot be reached, the
 * application starts anyway: one WARN names what could not be done, the work is retried in the background (after
 * 1 s, doubling up to 30 s) until it succeeds or the context closes, calls meanwhile resolve with the declared
 * settings laid over what the store holds, and the unavailability policy applies to each call the store cannot
 * answer. {@link #pending()} and {@link #state()} say what is still to do (the health indicator shows it).
 */
public final class StoreSetup implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StoreSetup.class);

    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LONGEST_RETRY = Duration.ofSeconds(30);

    /** One step of the set-up, named for logs and health. */
    private record Step(String what, Runnable action) {
    }

    private final LimitDeclarations declarations;
    private final Unavailable policy;
    private volatile Step table;
    private volatile boolean declarationsPending;
    private volatile String lastFailure;
    private volatile String failed;
    private volatile int attempts;
    private volatile Instant nextAttempt;
    private volatile RateLimiterAdmin admin;
    private volatile LimiterStore managed;
    /** Created under this object's monitor, which is never held while the store is asked. */
    private volatile ScheduledExecutorService retries;
    private volatile boolean closed;
    /** Keeps attempts one at a time (startup, then the retry thread) without holding this object's monitor. */
    private final Object attempting = new Object();

    StoreSetup(LimitDeclarations declarations, Unavailable policy) {
        this.declarations = declarations;
        this.policy = policy;
    }

    /**
     * Leaves the table step (creating the table, or checking that it exists) to {@link #start}, because the store
     * could not be asked when the store bean was made.
     */
    synchronized void deferTable(String what, Runnable action) {
        table = new Step(what, action);
    }

    /** Marks {@code store} as the one the auto-configuration built and sets up (the DynamoDB store). */
    void manages(LimiterStore store) {
        managed = store;
    }

    /**
     * The store as calls see it: for the store this set-up manages, a view that lays the declared settings over the
     * stored ones while the declarations are pending; any other store (in memory, or the application's own) as is.
     */
    LimiterStore forCalls(LimiterStore store) {
        if (store != managed || declarations.mode() == ZaeLimiterProperties.Declarations.Mode.VERIFY) {
            return store;
        }
        return new PendingDeclarationsStore(store, declarations, () -> declarationsPending);
    }

    /**
     * Runs the set-up once, at startup: a bad declaration, drift in verify mode with {@code on-drift: fail}, or a
     * missing table with creation off fails startup as before; a store that cannot be reached leaves the work to
     * background retries. Holds no monitor while it asks the store, so that {@link #close} never waits for it.
     */
    void start(RateLimiterAdmin admin) {
        this.admin = admin;
        declarationsPending = true;
        try {
            attempt();
        } catch (StoreUnavailableException e) {
            if (misconfigured(e)) {
                throw e;                              // no credentials or region: no retry will find them
            }
            lastFailure = e.getMessage();
            log.warn("zae-limiter could not {} at startup: {}. The application runs on: calls use the declared"
                    + " limits, the store's unavailability policy ({}) applies to each call the store cannot answer,"
                    + " and this is retried in the background until it succeeds", String.join(" and ", pending()),
                    e.getMessage(), policy.name().toLowerCase(Locale.ROOT));
            schedule();
        }
    }

    /**
     * Whether {@code failure} comes from the SDK finding no credentials or no region: a setting to fix, reported at
     * startup (see {@link DynamoDbRegionFailureAnalyzer}), not a store that is away.
     */
    private static boolean misconfigured(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && (message.contains("Unable to load credentials")
                    || message.contains("Unable to load region"))) {
                return true;
            }
        }
        return false;
    }

    /** Runs what is still to do; throws what the first failing step throws. */
    private void attempt() {
        synchronized (attempting) {
            attempts++;
            Step step = table;
            if (step != null) {
                step.action().run();
                table = null;
            }
            if (declarationsPending) {
                declarations.applyTo(admin);
                declarationsPending = false;
            }
            nextAttempt = null;
        }
    }

    private synchronized void schedule() {
        if (closed) {
            return;
        }
        if (retries == null) {
            retries = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "zae-limiter-store-setup");
                thread.setDaemon(true);
                return thread;
            });
        }
        long delay = Math.min(LONGEST_RETRY.toMillis(), FIRST_RETRY.toMillis() << Math.min(attempts - 1, 20));
        nextAttempt = Instant.now().plusMillis(delay);
        retries.schedule(this::retry, delay, TimeUnit.MILLISECONDS);
    }

    private void retry() {
        List<String> work = pending();
        try {
            attempt();
            log.info("zae-limiter did {} after {} attempts: the store is set up", String.join(" and ", work),
                    attempts);
            lastFailure = null;
        } catch (StoreUnavailableException e) {
            lastFailure = e.getMessage();
            log.debug("zae-limiter could still not {}: {}", String.join(" and ", work), e.getMessage());
            schedule();
        } catch (RuntimeException e) {
            synchronized (this) {
                failed = e.getMessage();
                lastFailure = e.getMessage();
                nextAttempt = null;
            }
            log.error("zae-limiter could not {} once the store answered, and stops trying: {}",
                    String.join(" and ", work), e.getMessage(), e);
        }
    }

    /** What is still to do, such as {@code create table 'rate-limits'}; empty once the store is set up. */
    public List<String> pending() {
        List<String> work = new ArrayList<>();
        Step step = table;
        if (step != null) {
            work.add(step.what());
        }
        if (declarationsPending) {
            work.add("apply the declarations (" + declarations.mode().name().toLowerCase(Locale.ROOT) + ")");
        }
        return work;
    }

    /**
     * The state for health: {@code pending} (what is still to do), {@code attempts}, {@code lastFailure},
     * {@code nextAttempt}, and {@code failed} when a retry met an error that retrying cannot cure; empty when
     * nothing is pending.
     */
    public java.util.Map<String, Object> state() {
        List<String> work = pending();
        java.util.Map<String, Object> state = new java.util.LinkedHashMap<>();
        if (work.isEmpty()) {
            return state;
        }
        state.put("pending", work);
        state.put("attempts", attempts);
        String last = lastFailure;
        if (last != null) {
            state.put("lastFailure", last);
        }
        Instant next = nextAttempt;
        if (next != null) {
            state.put("nextAttempt", next.toString());
        }
        String stopped = failed;
        if (stopped != null) {
            state.put("failed", stopped);
        }
        return state;
    }

    /** Stops the background retries at once, without waiting for an attempt in flight (it is interrupted). */
    @Override
    public void close() {
        closed = true;
        ScheduledExecutorService running;
        synchronized (this) {
            running = retries;               // schedule() holds the monitor only to create or use it
        }
        if (running != null) {
            running.shutdownNow();
        }
    }
}
