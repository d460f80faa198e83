/**
 * Actuator support for zae-limiter: the {@code ratelimits} endpoint, which lists the declared limits, shows one
 * entity's buckets on one resource and resets them, and the {@code zaeLimiter} health indicator for the store.
 */
package dev.zaelimiter.autoconfigure.actuate;
