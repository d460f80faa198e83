/**
 * Rate limiting for Reactor-based code: {@link dev.zaelimiter.autoconfigure.reactive.ReactiveRateLimiter}, used by the
 * WebFlux filter, reactive {@code @RateLimited} methods and the {@code WebClient} filter function.
 */
package dev.zaelimiter.autoconfigure.reactive;
