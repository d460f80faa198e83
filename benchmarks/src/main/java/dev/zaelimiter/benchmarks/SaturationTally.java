package dev.zaelimiter.benchmarks;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * What the threads of one saturation worker (or of a whole run, once merged) did: decisions by outcome, the requests
 * each outcome cost (attributed per call on the calling thread), the forced reads among them, the requests per
 * operation, and the wall-clock interval the calls fell in. Travels from a worker process to the coordinator as one
 * text line. Not thread-safe: one per thread, merged.
 */
final class SaturationTally {

    long calls;
    long admitted;
    long refused;
    long errors;
    /** Requests sent by calls that were admitted, and among them reads forced by the server. */
    long requestsAdmitted;
    long forcedAdmitted;
    /** Requests sent by calls that were refused (or failed), and among them reads forced by the server. */
    long requestsRefused;
    long forcedRefused;
    /** Time spent in calls, in nanoseconds, and the longest call. */
    long busyNanos;
    long maxNanos;
    /** Scheduled calls dropped because the thread was still busy with an earlier one. */
    long missedSlots;
    /** Epoch milliseconds: the start of the first call and the end of the last; 0 when none. */
    long firstStartMillis;
    long lastEndMillis;
    /** Requests per operation for the whole process, with the counter's pseudo-operations (see RequestCounter). */
    final Map<String, Long> operations = new TreeMap<>();
    String firstError;

    void call(long startMillis, long endMillis, long nanos) {
        calls++;
        busyNanos += nanos;
        maxNanos = Math.max(maxNanos, nanos);
        firstStartMillis = firstStartMillis == 0 ? startMillis : Math.min(firstStartMillis, startMillis);
        lastEndMillis = Math.max(lastEndMillis, endMillis);
    }

    void merge(SaturationTally other) {
        calls += other.calls;
        admitted += other.admitted;
        refused += other.refused;
        errors += other.errors;
        requestsAdmitted += other.requestsAdmitted;
        forcedAdmitted += other.forcedAdmitted;
        requestsRefused += other.requestsRefused;
        forcedRefused += other.forcedRefused;
        missedSlots += other.missedSlots;
        busyNanos += other.busyNanos;
        maxNanos = Math.max(maxNanos, other.maxNanos);
        if (other.firstStartMillis != 0) {
            firstStartMillis = firstStartMillis == 0 ? other.firstStartMillis
                    : Math.min(firstStartMillis, other.firstStartMillis);
        }
        lastEndMillis = Math.max(lastEndMillis, other.lastEndMillis);
        other.operations.forEach((k, v) -> operations.merge(k, v, Long::sum));
        if (firstError == null) {
            firstError = other.firstError;
        }
    }

    /** Mean time per call, in milliseconds. */
    double meanMillis() {
        return calls == 0 ? 0 : busyNanos / 1e6 / calls;
    }

    /** Requests of real operations (not refused conditions or the forced-read tally). */
    long requests() {
        long total = 0;
        for (Map.Entry<String, Long> e : operations.entrySet()) {
            if (RequestCounter.isOperation(e.getKey())) {
                total += e.getValue();
            }
        }
        return total;
    }

    long forcedReads() {
        return operations.getOrDefault(RequestCounter.FORCED_READ, 0L);
    }

    /** Requests no decision thread sent (background work of the store), if any. */
    long unattributed() {
        return requests() - requestsAdmitted - requestsRefused;
    }

    String toLine() {
        StringJoiner line = new StringJoiner(" ");
        line.add("calls=" + calls).add("admitted=" + admitted).add("refused=" + refused).add("errors=" + errors)
                .add("requestsAdmitted=" + requestsAdmitted).add("forcedAdmitted=" + forcedAdmitted)
                .add("requestsRefused=" + requestsRefused).add("forcedRefused=" + forcedRefused)
                .add("missedSlots=" + missedSlots).add("busyNanos=" + busyNanos).add("maxNanos=" + maxNanos)
                .add("firstStartMillis=" + firstStartMillis)
                .add("lastEndMillis=" + lastEndMillis);
        operations.forEach((k, v) -> line.add("op." + encode(k) + "=" + v));
        if (firstError != null) {
            line.add("firstError=" + encode(firstError));
        }
        return line.toString();
    }

    static SaturationTally parse(String line) {
        SaturationTally t = new SaturationTally();
        for (String field : line.trim().split(" ")) {
            String[] kv = field.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("bad field '" + field + "' in: " + line);
            }
            String k = kv[0];
            String v = kv[1];
            if (k.startsWith("op.")) {
                t.operations.put(decode(k.substring(3)), Long.parseLong(v));
                continue;
            }
            switch (k) {
                case "calls" -> t.calls = Long.parseLong(v);
                case "admitted" -> t.admitted = Long.parseLong(v);
                case "refused" -> t.refused = Long.parseLong(v);
                case "errors" -> t.errors = Long.parseLong(v);
                case "requestsAdmitted" -> t.requestsAdmitted = Long.parseLong(v);
                case "forcedAdmitted" -> t.forcedAdmitted = Long.parseLong(v);
                case "requestsRefused" -> t.requestsRefused = Long.parseLong(v);
                case "forcedRefused" -> t.forcedRefused = Long.parseLong(v);
                case "missedSlots" -> t.missedSlots = Long.parseLong(v);
                case "busyNanos" -> t.busyNanos = Long.parseLong(v);
                case "maxNanos" -> t.maxNanos = Long.parseLong(v);
                case "firstStartMillis" -> t.firstStartMillis = Long.parseLong(v);
                case "lastEndMillis" -> t.lastEndMillis = Long.parseLong(v);
                case "firstError" -> t.firstError = decode(v);
                default -> throw new IllegalArgumentException("unknown field '" + k + "' in: " + line);
            }
        }
        return t;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
