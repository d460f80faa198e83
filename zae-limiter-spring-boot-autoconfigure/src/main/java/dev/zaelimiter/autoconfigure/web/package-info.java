/**
 * The servlet filter of zae-limiter: rules under {@code zae.limiter.web}, 429 answers with {@code Retry-After}, IETF
 * {@code RateLimit-Policy}/{@code RateLimit} headers and RFC 9457 problem bodies.
 */
package dev.zaelimiter.autoconfigure.web;
