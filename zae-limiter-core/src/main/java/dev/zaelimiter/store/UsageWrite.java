package dev.zaelimiter.store;

/**
 * Counts one process adds to one usage period. A store applies the write to the period once: it remembers, per
 * period, the highest {@code sequence} of each {@code writerId} it applied, and ignores a write whose sequence is
 * not higher (a retry of a write that landed, or a duplicate delivery).
 *
 * @param period   what to add
 * @param writerId the writing process (a limiter), unique per process lifetime
 * @param sequence increases with every write of the writer to the same period
 */
public record UsageWrite(UsagePeriod period, String writerId, long sequence) {
}
