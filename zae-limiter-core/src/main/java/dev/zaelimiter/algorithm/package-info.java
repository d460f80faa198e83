/**
 * Token bucket arithmetic with no I/O: pure functions on milli-token balances and millisecond instants, shared by
 * every store.
 */
package dev.zaelimiter.algorithm;
