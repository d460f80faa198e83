/**
 * The store SPI: what a backend must do so that {@link dev.zaelimiter.RateLimiter} can run on it. The engine resolves
 * configuration and validates input; a store keeps entities, configuration levels and buckets, and applies the
 * bucket transitions of {@link dev.zaelimiter.store.BucketState} atomically.
 */
package dev.zaelimiter.store;
