package dev.zaelimiter.store.redis;

import dev.zaelimiter.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Every command the store sends, on one connection that its threads share (to a standalone Redis, through
 * Sentinel, or to a Redis Cluster, where Lettuce sends each command to the node of its keys' slot), each under the
 * request deadline: a transport failure, a timeout or an error answer becomes {@link StoreUnavailableException}.
 * Scripts are sent by their digest ({@code EVALSHA}), and whole ({@code EVAL}, which also loads them) when the server
 * does not know them (first use, a restart, a {@code SCRIPT FLUSH}). Commands sent {@link #together} are all in
 * flight at once: one round trip of latency, whichever nodes they go to.
 */
final class RedisCalls implements AutoCloseable {

    /** A server-side script, by name, with its digest and the type of its answer. */
    record Script(String name, String text, String sha, ScriptOutputType output) {

        /** A script that answers with a list. */
        static Script load(String name) {
            return load(name, ScriptOutputType.MULTI);
        }

        static Script load(String name, ScriptOutputType output) {
            try (InputStream in = RedisCalls.class.getResourceAsStream(name + ".lua")) {
                if (in == null) {
                    throw new IllegalStateException("script " + name + ".lua is missing from the jar");
                }
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
                return new Script(name, text, HexFormat.of().formatHex(digest), output);
            } catch (IOException | NoSuchAlgorithmException e) {
                throw new IllegalStateException("cannot read script " + name, e);
            }
        }
    }

    /** A script run to send {@link #together} with other commands. */
    record Run(Script script, List<String> keys, List<String> args) {
    }

    /** The connection and its two views. */
    private record Link(StatefulConnection<String, String> connection, RedisClusterCommands<String, String> sync,
            RedisClusterAsyncCommands<String, String> async) {

        static Link of(StatefulConnection<String, String> connection) {
            if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
                return new Link(cluster, cluster.sync(), cluster.async());
            }
            StatefulRedisConnection<String, String> single = (StatefulRedisConnection<String, String>) connection;
            return new Link(single, single.sync(), single.async());
        }
    }

    private final AbstractRedisClient client;
    private final boolean ownsClient;
    private final Duration timeout;
    private final String where;
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong commands = new AtomicLong();
    /** The connection being opened, which every thread that finds none waits for, bounded by the deadline. */
    private final AtomicReference<CompletableFuture<Link>> opening = new AtomicReference<>();
    private volatile Link connection;
    private volatile boolean closed;

    /** Calls on {@code client}: a {@link RedisClient} (standalone or Sentinel) or a {@link RedisClusterClient}. */
    RedisCalls(AbstractRedisClient client, boolean ownsClient, Duration timeout, String where) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.timeout = timeout;
        this.where = where;
    }

    /**
     * Runs {@code script}; its answer as Lettuce gives it (lists of strings, longs and lists; or a long). Sent whole
     * after a {@code NOSCRIPT}, in what is left of the one deadline. Sent and awaited here rather than through
     * Lettuce's synchronous view, whose reflective proxy costs the calling thread more than the command.
     */
    @SuppressWarnings("unchecked")
    <T> T run(Script script, List<String> keys, List<String> args) {
        if (closed) {
            throw new StoreUnavailableException("the Redis store at " + where + " is closed", null);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        commands.incrementAndGet();
        return (T) unavailableIfFailed(() -> await(send(connection().async(), new Run(script, keys, args)), deadline,
                true));
    }

    /** Whether the store runs on a Redis Cluster. */
    boolean cluster() {
        return client instanceof RedisClusterClient;
    }

    /** The slot of {@code key} on a cluster; 0 for every key elsewhere (all keys are together). */
    int slot(String key) {
        return cluster() ? SlotHash.getSlot(key) : 0;
    }

    /** The positions of {@code keys} grouped by hash slot, in order of first appearance (one group off a cluster). */
    List<int[]> bySlot(List<String> keys) {
        Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            slots.computeIfAbsent(slot(keys.get(i)), slot -> new ArrayList<>()).add(i);
        }
        return slots.values().stream().map(group -> group.stream().mapToInt(Integer::intValue).toArray()).toList();
    }

    /**
     * Runs {@code script} on {@code keys}, and answers as it does with its second element the value of
     * {@code versionKey}: on one Redis, the script reads it (its last key); on a cluster, where it lies in another
     * slot, a {@code GET} in flight with the script reads it (two commands, one round trip).
     */
    List<Object> runVersioned(Script script, List<String> keys, List<String> args, String versionKey) {
        if (!cluster()) {
            List<String> all = new ArrayList<>(keys);
            all.add(versionKey);
            return run(script, all, args);
        }
        List<Object> answers = each(List.of(new Run(script, keys, args)), List.of(versionKey));
        if (answers.get(0) instanceof StoreUnavailableException failed) {
            throw failed;
        }
        @SuppressWarnings("unchecked")
        List<Object> reply = new ArrayList<>((List<Object>) answers.get(0));
        reply.set(1, version(answers.get(1)));
        return reply;
    }

    /**
     * The configuration version a {@code GET} answered: {@code "0"} for none yet, and {@code ""} (unknown: the
     * configuration is then kept by its {@code stampTtl}) when the read failed, so that a decision the script made
     * is answered even while the node that holds the version is out.
     */
    static Object version(Object answer) {
        return answer == null ? "0" : answer instanceof StoreUnavailableException ? "" : answer;
    }

    /**
     * Sends every run of {@code runs} and a {@code GET} of every key of {@code reads}, all in flight at once, and
     * answers with their answers in that order (a missing key's {@code GET} answers {@code null}); each script the
     * server does not know is sent whole, within the one deadline. The first that failed fails the whole.
     */
    List<Object> together(List<Run> runs, List<String> reads) {
        List<Object> answers = each(runs, reads);
        for (Object answer : answers) {
            if (answer instanceof StoreUnavailableException failed) {
                throw failed;
            }
        }
        return answers;
    }

    /**
     * As {@link #together}, but each command fails on its own: its answer is then the
     * {@link StoreUnavailableException} it failed with, so that the caller knows what the others did.
     */
    List<Object> each(List<Run> runs, List<String> reads) {
        if (closed) {
            throw new StoreUnavailableException("the Redis store at " + where + " is closed", null);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        commands.addAndGet(runs.size() + reads.size());
        RedisClusterAsyncCommands<String, String> async = unavailableIfFailed(() -> connection().async());
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (Run run : runs) {
            try {
                sent.add(send(async, run));
            } catch (RedisException e) {
                sent.add(CompletableFuture.failedFuture(e));
            }
        }
        for (String key : reads) {
            sent.add(async.get(key).toCompletableFuture());
        }
        List<Object> answers = new ArrayList<>(sent.size());
        for (CompletableFuture<?> answer : sent) {
            try {
                answers.add(unavailableIfFailed(() -> await(answer, deadline, true)));
            } catch (StoreUnavailableException e) {
                answers.add(e);
            }
        }
        return answers;
    }

    /** The value of {@code command}, a Redis failure or timeout as {@link StoreUnavailableException}. */
    private <T> T unavailableIfFailed(java.util.function.Supplier<T> command) {
        try {
            return command.get();
        } catch (RedisCommandTimeoutException e) {
            timeouts.incrementAndGet();
            throw new StoreUnavailableException("Redis at " + where + " did not answer within " + timeout, e);
        } catch (RedisException e) {
            throw new StoreUnavailableException("Redis at " + where + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Sends {@code run} by its digest, and whole after a {@code NOSCRIPT}. Cancelling the answer cancels Lettuce's
     * command too (as its synchronous view does when late), so that a command still buffered while the connection is
     * down is not sent once it is back.
     */
    private CompletableFuture<Object> send(RedisClusterAsyncCommands<String, String> async, Run run) {
        String[] k = run.keys().toArray(String[]::new);
        String[] a = run.args().toArray(String[]::new);
        Script script = run.script();
        ScriptAnswer answer = new ScriptAnswer();
        answer.follow(async.evalsha(script.sha(), script.output(), k, a).toCompletableFuture(), failure -> {
            if (!(failure instanceof RedisNoScriptException) || answer.isDone()) {
                return false;
            }
            commands.incrementAndGet();
            answer.follow(async.<Object>eval(script.text(), script.output(), k, a).toCompletableFuture(), f -> false);
            return true;
        });
        return answer;
    }

    /** The answer of a script run, which cancels the command it waits for (EVALSHA, then EVAL) when cancelled. */
    private static final class ScriptAnswer extends CompletableFuture<Object> {

        private volatile Future<Object> command;

        /** Answers as {@code sent} does, unless {@code retried} takes its failure over (and answers true). */
        void follow(CompletableFuture<Object> sent, Predicate<Throwable> retried) {
            command = sent;
            if (isCancelled()) {
                sent.cancel(true);
            }
            sent.whenComplete((value, failure) -> {
                Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                if (failure == null) {
                    complete(value);
                } else if (!retried.test(cause)) {
                    completeExceptionally(cause);
                }
            });
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            command.cancel(mayInterruptIfRunning);
            return cancelled;
        }
    }

    /** Runs one or more plain commands. */
    <T> T call(Function<RedisClusterCommands<String, String>, T> command) {
        if (closed) {
            throw new StoreUnavailableException("the Redis store at " + where + " is closed", null);
        }
        commands.incrementAndGet();
        try {
            return command.apply(connection().sync());
        } catch (RedisCommandTimeoutException e) {
            timeouts.incrementAndGet();
            throw new StoreUnavailableException("Redis at " + where + " did not answer within " + timeout, e);
        } catch (RedisException e) {
            throw new StoreUnavailableException("Redis at " + where + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The connection, opened by the first call that needs it (within the client's connect timeout), while every
     * other call waits for that one attempt within its deadline: a Redis that cannot be reached fails them all
     * together, not one connect timeout after another.
     */
    private Link connection() {
        Link c = connection;
        if (c != null) {
            return c;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        CompletableFuture<Link> mine = new CompletableFuture<>();
        CompletableFuture<Link> pending = opening.compareAndExchange(null, mine);
        if (pending == null) {
            open(mine);
            pending = mine;
        }
        return await(pending, deadline, false);
    }

    private void open(CompletableFuture<Link> into) {
        try {
            Link opened = connection;
            if (opened == null) {
                opened = Link.of(client instanceof RedisClusterClient cluster ? cluster.connect()
                        : ((RedisClient) client).connect());
                opened.connection().setTimeout(timeout);
                if (!keep(opened)) {
                    opened.connection().close();
                    throw new StoreUnavailableException("the Redis store at " + where + " is closed", null);
                }
            }
            into.complete(opened);
        } catch (RuntimeException e) {
            into.completeExceptionally(e);
        } finally {
            opening.set(null);
        }
    }

    /** Keeps {@code opened} as the connection unless the store was closed meanwhile. */
    private synchronized boolean keep(Link opened) {
        if (closed) {
            return false;
        }
        connection = opened;
        return true;
    }

    /**
     * The value of {@code future} by {@code deadline} ({@link System#nanoTime()}), cancelled when late if
     * {@code cancelLate}; failures as {@link #call} maps them, and a client that was shut down (an
     * {@link IllegalStateException}) is unavailable too.
     */
    private <T> T await(Future<T> future, long deadline, boolean cancelLate) {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (cancelLate) {
                future.cancel(true);
            }
            throw new RedisCommandTimeoutException("no answer by the deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while waiting for Redis", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RedisException || cause instanceof StoreUnavailableException) {
                throw (RuntimeException) cause;
            }
            throw new StoreUnavailableException("Redis at " + where + " cannot be used: " + cause, cause);
        }
    }

    /** Round trips made: one per script run or plain call, one more where a script had to be sent whole. */
    long commands() {
        return commands.get();
    }

    long timeouts() {
        return timeouts.get();
    }

    @Override
    public void close() {
        Link open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            open = connection;
            connection = null;
        }
        if (open != null) {
            open.connection().close();
        }
        if (ownsClient) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
