package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.SaturationBenchmark.Run;
import dev.zaelimiter.benchmarks.SaturationBenchmark.Settings;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** The Markdown tables of a saturation run: decisions against the bound, then what they cost in requests. */
final class SaturationReport {

    /** The specification's targets under saturation (§8), per admitted and per refused call. */
    static final double ADMITTED_TARGET = 1.1;
    static final double REFUSED_TARGET = 0.1;

    private SaturationReport() {
    }

    static String markdown(Settings settings, List<Run> runs) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Decisions (bound = capacity %d + %d/s × seconds):%n%n",
                settings.capacity(), settings.ratePerSecond()));
        out.append("| Run | Seconds | Calls | Calls / s | × rate | Mean / max ms per call | Admitted | Refused "
                + "| Errors | Admitted / s | Bound | Bound / s | Admitted ≤ bound |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Run run : runs) {
            SaturationTally t = run.tally();
            long bound = run.bound(settings);
            out.append(String.format(Locale.ROOT,
                    "| %s | %.2f | %d | %.1f | %.1f | %.1f / %.0f | %d | %d | %s | %.1f | %d | %.1f | %s |%n",
                    run.shape().label(), run.seconds(), t.calls, t.calls / run.seconds(),
                    t.calls / run.seconds() / settings.ratePerSecond(), t.meanMillis(),
                    t.maxNanos / 1e6, t.admitted, t.refused,
                    t.errors == 0 ? "0" : t.errors + " (" + t.firstError + ")", t.admitted / run.seconds(), bound,
                    bound / run.seconds(),
                    t.admitted <= bound ? "yes" : "**no**, " + (t.admitted - bound) + " over"));
        }
        out.append('\n');
        out.append("Requests (per admitted and per refused call: the requests the call itself sent, on its thread; "
                + "forced: `GetItem`s right after a refused condition that asked for the old item, which DynamoDB "
                + "would have returned and dynalite does not):\n\n");
        out.append("| Run | Requests | By operation | Refused conditions | Requests / call | Requests / admitted | "
                + "Requests / refused | Forced reads | Requests / admitted, no forced | Requests / refused, "
                + "no forced | Target ≤ " + ADMITTED_TARGET + " / ≤ " + REFUSED_TARGET + " |\n");
        out.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Run run : runs) {
            SaturationTally t = run.tally();
            double admitted = per(t.requestsAdmitted - t.forcedAdmitted, t.admitted);
            double refused = per(t.requestsRefused - t.forcedRefused, t.refused + t.errors);
            out.append(String.format(Locale.ROOT,
                    "| %s | %d | %s | %d | %.2f | %.2f | %.2f | %d | %.2f | %.2f | %s |%n",
                    run.shape().label(), t.requests(), breakdown(t),
                    t.operations.getOrDefault(RequestCounter.CONDITION_FAILED, 0L), per(t.requests(), t.calls),
                    per(t.requestsAdmitted, t.admitted), per(t.requestsRefused, t.refused + t.errors),
                    t.forcedReads(), admitted, refused, verdict(admitted, refused)));
        }
        return out.toString();
    }

    private static String verdict(double admitted, double refused) {
        boolean a = admitted <= ADMITTED_TARGET;
        boolean r = refused <= REFUSED_TARGET;
        return a && r ? "met" : a ? "admitted only" : r ? "refused only" : "not met";
    }

    private static String breakdown(SaturationTally t) {
        StringJoiner parts = new StringJoiner(", ");
        for (Map.Entry<String, Long> e : t.operations.entrySet()) {
            if (RequestCounter.isOperation(e.getKey())) {
                parts.add(e.getKey() + " " + e.getValue());
            }
        }
        if (t.unattributed() != 0) {
            parts.add("(of which " + t.unattributed() + " off the calling threads)");
        }
        return parts.toString();
    }

    private static double per(long count, long calls) {
        return calls == 0 ? 0 : (double) count / calls;
    }
}
