package dev.zaelimiter.benchmarks;

import dev.zaelimiter.benchmarks.WaitingBenchmark.Call;
import dev.zaelimiter.benchmarks.WaitingBenchmark.Options;
import dev.zaelimiter.benchmarks.WaitingBenchmark.Result;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The Markdown table of a waiting run and the measures behind it. */
final class WaitingReport {

    /** The opening burst (the full bucket's capacity going to whoever asks first) is left out of the shut-outs. */
    static final long OPENING_MILLIS = 1_000;

    private WaitingReport() {
    }

    static String markdown(Options options, List<Result> results) {
        StringBuilder out = new StringBuilder();
        out.append("| Run | Calls | Admitted | Bound | Timed out | Errors | UpdateItem / admitted "
                + "| Requests / admitted, no forced | Wait p50 / p99 / max ms | Longest without admission, per process, ms "
                + "| Cross-process pairs out of order | High-priority share |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
        for (Result r : results) {
            SaturationTally t = r.run().tally();
            long updates = t.operations.getOrDefault("UpdateItem", 0L);
            long requests = t.requests() - t.forcedReads();
            List<Long> waits = r.calls().stream().filter(c -> c.outcome() == 1)
                    .map(c -> c.endMillis() - c.startMillis()).sorted().toList();
            int processes = r.plan().shape().processes();
            StringBuilder gaps = new StringBuilder();
            for (int p = 0; p < processes; p++) {
                gaps.append(p == 0 ? "" : ", ").append(longestWithoutAdmission(r.calls(), p));
            }
            double[] order = outOfOrder(r.calls());
            out.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %s | %.2f | %.2f | %d / %d / %d | %s "
                            + "| %.0f%% of %d | %s |%n",
                    r.plan().label(), t.calls, t.admitted, r.run().bound(options.settings()), t.refused,
                    t.errors == 0 ? "0" : t.errors + " (" + t.firstError + ")",
                    per(updates, t.admitted), per(requests, t.admitted), percentile(waits, 0.50),
                    percentile(waits, 0.99), waits.isEmpty() ? 0 : waits.get(waits.size() - 1), gaps,
                    100 * order[0], (long) order[1],
                    r.plan().priorities() ? String.format(Locale.ROOT, "%.0f%% (%.0f%% of threads)",
                            100.0 * highShare(r.calls()), 100.0 / processes) : "–"));
        }
        return out.toString();
    }

    /**
     * The longest stretch, after the opening second, in which process {@code p} had no admission while its
     * threads waited (they always do, in a closed loop): from the later of the run's first call plus
     * {@link #OPENING_MILLIS} and an admission, to the next admission or the end of its last call.
     */
    static long longestWithoutAdmission(List<Call> calls, int p) {
        long first = calls.stream().mapToLong(Call::startMillis).min().orElse(0) + OPENING_MILLIS;
        long last = calls.stream().filter(c -> c.process() == p).mapToLong(Call::endMillis).max().orElse(first);
        List<Long> admissions = calls.stream().filter(c -> c.process() == p && c.outcome() == 1)
                .map(Call::endMillis).filter(at -> at >= first).sorted().toList();
        long longest = 0;
        long from = first;
        for (long at : admissions) {
            longest = Math.max(longest, at - from);
            from = at;
        }
        return Math.max(longest, last - from);
    }

    /**
     * Of the pairs of admitted calls of different processes that waited at the same time (the later one started
     * before the earlier one ended), the share that ended in the other order than they started (0 is first come,
     * first served; about a half is random), and the number of such pairs.
     */
    static double[] outOfOrder(List<Call> calls) {
        List<Call> admitted = calls.stream().filter(c -> c.outcome() == 1)
                .sorted(Comparator.comparingLong(Call::startMillis)).toList();
        long pairs = 0;
        long swapped = 0;
        for (int i = 0; i < admitted.size(); i++) {
            Call a = admitted.get(i);
            for (int j = i + 1; j < admitted.size() && admitted.get(j).startMillis() < a.endMillis(); j++) {
                Call b = admitted.get(j);
                if (b.process() != a.process() && b.startMillis() > a.startMillis()) {
                    pairs++;
                    if (b.endMillis() < a.endMillis()) {
                        swapped++;
                    }
                }
            }
        }
        return new double[] {pairs == 0 ? 0 : (double) swapped / pairs, pairs};
    }

    /** The share of admissions that went to the first process (the one at high priority). */
    static double highShare(List<Call> calls) {
        long admitted = calls.stream().filter(c -> c.outcome() == 1).count();
        long high = calls.stream().filter(c -> c.outcome() == 1 && c.process() == 0).count();
        return admitted == 0 ? 0 : (double) high / admitted;
    }

    private static long percentile(List<Long> sorted, double q) {
        return sorted.isEmpty() ? 0 : sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1));
    }

    private static double per(long count, long of) {
        return of == 0 ? 0 : (double) count / of;
    }
}
