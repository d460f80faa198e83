/**
 * Micrometer metrics for zae-limiter: a counter and a timer of decisions, and a timer of store calls. Entity ids
 * are left out of the tags unless asked for, so that the number of time series stays bounded.
 */
package dev.zaelimiter.autoconfigure.metrics;
