package dev.zaelimiter.algorithm;

/**
 * The live state of one limit in a bucket.
 *
 * @param balanceMilli  milli-tokens available; negative while the limit is in debt
 * @param consumedMilli net milli-tokens consumed over the bucket's life (acquires and adjustments, minus rollbacks);
 *                      never reset by refill
 */
public record LimitState(long balanceMilli, long consumedMilli) {
}
