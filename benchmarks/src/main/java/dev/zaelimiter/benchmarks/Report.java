package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.BenchmarkHarness.Result;
import dev.zaelimiter.benchmarks.BenchmarkHarness.Side;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** The Markdown tables of a run. */
final class Report {

    /** The target: our latency at most this fraction of the baseline's. */
    static final double TARGET = 0.6;

    private Report() {
    }

    static String markdown(List<Result> results) {
        StringBuilder out = new StringBuilder();
        out.append("| Scenario | Threads | Implementation | Decisions | Admitted | Requests / decision | Of which "
                + "| Refused conditions / decision | p50 µs | p99 µs | Decisions / s |\n");
        out.append("|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
        for (Result r : results) {
            row(out, r, r.ours());
            row(out, r, r.baseline());
        }
        out.append('\n');
        out.append("| Scenario | Threads | p50 ours / baseline | p99 ours / baseline | Throughput ours / baseline "
                + "| Requests ours / baseline | Latency target ≤ " + TARGET + "× |\n");
        out.append("|---|---:|---:|---:|---:|---:|---|\n");
        for (Result r : results) {
            double p50 = ratio(r.ours().micros(0.50), r.baseline().micros(0.50));
            double p99 = ratio(r.ours().micros(0.99), r.baseline().micros(0.99));
            out.append(String.format(Locale.ROOT, "| %s | %d | %.2f | %.2f | %.2f | %.2f | %s |%n",
                    r.scenario().name(), r.scenario().threads(), p50, p99,
                    ratio(r.ours().throughput(), r.baseline().throughput()),
                    ratio(r.ours().requestsPerDecision(), r.baseline().requestsPerDecision()),
                    p50 <= TARGET && p99 <= TARGET ? "met" : p50 <= TARGET ? "p50 only" : "not met"));
        }
        return out.toString();
    }

    private static void row(StringBuilder out, Result r, Side side) {
        out.append(String.format(Locale.ROOT, "| %s | %d | %s | %d | %s | %.3f | %s | %.3f | %.0f | %.0f | %.0f |%n",
                r.scenario().name(), r.scenario().threads(), side.implementation, side.decisions,
                percent(side.admitted, side.decisions) + (side.errors > 0 ? " (" + side.errors + " errors)" : ""),
                side.requestsPerDecision(), breakdown(side), side.conditionFailuresPerDecision(),
                side.micros(0.50), side.micros(0.99), side.throughput()));
    }

    private static String breakdown(Side side) {
        StringJoiner parts = new StringJoiner(", ");
        for (Map.Entry<String, Long> e : side.requests.entrySet()) {
            if (RequestCounter.isOperation(e.getKey())) {
                parts.add(String.format(Locale.ROOT, "%s %.3f", e.getKey(), side.perDecision(e.getValue())));
            }
        }
        return parts.toString();
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }

    private static double ratio(double a, double b) {
        return b == 0 ? Double.NaN : a / b;
    }
}
