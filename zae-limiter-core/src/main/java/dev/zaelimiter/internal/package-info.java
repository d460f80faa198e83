/**
 * The engine: everything under {@code dev.zaelimiter.internal} is used by the limiter, its stores and the Spring Boot
 * starter, and is not part of the public API. It may change in any release; applications use
 * {@code dev.zaelimiter} (the API) and {@code dev.zaelimiter.store} (the store SPI) only.
 */
package dev.zaelimiter.internal;
