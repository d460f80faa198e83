/**
 * Rate limiting of outbound HTTP calls: a {@code RestClient}/{@code RestTemplate} interceptor and a {@code WebClient}
 * filter function per {@link dev.zaelimiter.autoconfigure.client.OutboundTarget} that acquire before each call and
 * turn an upstream {@code 429}/{@code 503} with {@code Retry-After} into a pause shared through the store.
 */
package dev.zaelimiter.autoconfigure.client;
