package dev.zaelimiter.benchmarks;

import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every command a Lettuce client writes, by type ({@code EVALSHA}, {@code GET}, ...) and per thread. Lettuce
 * tells its listeners on the thread that sends the command, so a synchronous call reads its thread's count before
 * and after: the commands that call sent, each one round trip.
 */
final class RedisCommandCounter implements CommandListener {

    /** What one thread has sent so far. */
    static final class ThreadCount implements SaturationWorker.ThreadCount {
        long commands;

        @Override
        public long requests() {
            return commands;
        }

        @Override
        public long forced() {
            return 0;
        }
    }

    private final Map<String, LongAdder> byType = new ConcurrentHashMap<>();
    private final ThreadLocal<ThreadCount> perThread = ThreadLocal.withInitial(ThreadCount::new);

    @Override
    public void commandStarted(CommandStartedEvent event) {
        perThread.get().commands++;
        byType.computeIfAbsent(event.getCommand().getType().toString(), t -> new LongAdder()).increment();
    }

    /** The calling thread's count; read it on that thread. */
    ThreadCount thread() {
        return perThread.get();
    }

    /** Commands so far by type. */
    Map<String, Long> snapshot() {
        Map<String, Long> copy = new TreeMap<>();
        byType.forEach((type, count) -> copy.put(type, count.sum()));
        return copy;
    }
}
