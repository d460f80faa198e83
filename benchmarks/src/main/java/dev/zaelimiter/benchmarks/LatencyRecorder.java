package dev.zaelimiter.benchmarks;

import java.util.Arrays;

/** Every latency of a run, in nanoseconds; exact percentiles by sorting. Not thread-safe: one per thread, merged. */
final class LatencyRecorder {

    private long[] values = new long[4096];
    private int size;
    private boolean sorted = true;

    void record(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
        sorted = false;
    }

    void addAll(LatencyRecorder other) {
        if (size + other.size > values.length) {
            values = Arrays.copyOf(values, Math.max(values.length * 2, size + other.size));
        }
        System.arraycopy(other.values, 0, values, size, other.size);
        size += other.size;
        sorted = false;
    }

    int count() {
        return size;
    }

    /** The nearest-rank {@code q}-quantile (0 &lt; q &le; 1), in nanoseconds; 0 when empty. */
    long quantile(double q) {
        if (size == 0) {
            return 0;
        }
        if (!sorted) {
            Arrays.sort(values, 0, size);
            sorted = true;
        }
        int rank = (int) Math.ceil(q * size);
        return values[Math.min(size, Math.max(1, rank)) - 1];
    }

    double meanNanos() {
        if (size == 0) {
            return 0;
        }
        double sum = 0;
        for (int i = 0; i < size; i++) {
            sum += values[i];
        }
        return sum / size;
    }
}
