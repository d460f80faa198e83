package dev.zaelimiter.benchmarks.jmh;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs one of {@link InMemoryBenchmarks}' calls in a plain loop, for figures that do not depend on the machine's
 * load: the bytes this thread allocates per call, and, under {@code valgrind --tool=callgrind
 * --instr-atstart=no}, the instructions per call. After the warm-up it prints {@code warm}; with {@code --go=FILE} it
 * then waits for that file to exist (the moment to switch callgrind's instrumentation on) before the measured calls.
 *
 * <pre>
 * java -jar benchmarks/target/zae-limiter-benchmarks.jar calls hot|keys|gateway|gatewayKeys|refused|refusedAttempt
 *      [--warmup=60000] [--calls=1000000] [--go=FILE]
 * </pre>
 */
public final class CallCount {

    private static final Map<String, Function<InMemoryBenchmarks.Limiter, Object>> CALLS = Map.of(
            "hot", state -> new InMemoryBenchmarks().oneLimitHotKey(state),
            "keys", state -> new InMemoryBenchmarks().oneLimitTenThousandKeys(state),
            "gateway", state -> new InMemoryBenchmarks().gatewayThreeLimits(state),
            "gatewayKeys", state -> new InMemoryBenchmarks().gatewayTenThousandKeys(state),
            "refused", state -> new InMemoryBenchmarks().refused(state),
            "refusedAttempt", state -> new InMemoryBenchmarks().refusedAttempt(state));

    /** What the last call returned, so that no call is optimised away. */
    static volatile Object last;

    private CallCount() {
    }

    public static void main(String[] args) throws Exception {
        Function<InMemoryBenchmarks.Limiter, Object> call = args.length == 0 ? null : CALLS.get(args[0]);
        if (call == null) {
            throw new IllegalArgumentException("expected one of " + CALLS.keySet() + " first");
        }
        int warmup = 60_000;
        int calls = 1_000_000;
        Path go = null;
        for (int i = 1; i < args.length; i++) {
            if (args[i].startsWith("--warmup=")) {
                warmup = Integer.parseInt(args[i].substring("--warmup=".length()));
            } else if (args[i].startsWith("--calls=")) {
                calls = Integer.parseInt(args[i].substring("--calls=".length()));
            } else if (args[i].startsWith("--go=")) {
                go = Path.of(args[i].substring("--go=".length()));
            } else {
                throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (expected --warmup=N, --calls=N or --go=FILE)");
            }
        }
        InMemoryBenchmarks.Limiter state = new InMemoryBenchmarks.Limiter();
        state.setUp();
        for (int i = 0; i < warmup / 1000; i++) {
            loop(call, state, 1000);                  // many short loops: the loop itself gets compiled normally
        }
        // obtained and used before the measured calls, so that loading its classes is not counted with them
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        threads.getCurrentThreadAllocatedBytes();
        System.out.println("warm");
        while (go != null && !Files.exists(go)) {
            Thread.sleep(20);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        loop(call, state, calls);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        System.out.printf("%s: %d calls, %.1f bytes per call%n", args[0], calls, (double) allocated / calls);
    }

    private static void loop(Function<InMemoryBenchmarks.Limiter, Object> call, InMemoryBenchmarks.Limiter state,
            int calls) {
        for (int i = 0; i < calls; i++) {
            last = call.apply(state);
        }
    }
}
