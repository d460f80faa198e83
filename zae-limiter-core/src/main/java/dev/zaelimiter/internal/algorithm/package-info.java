/**
 * Token bucket arithmetic with no I/O (engine, not public API): pure functions on milli-token balances,
 * full-at grid points and millisecond instants, shared by every store.
 */
package dev.zaelimiter.internal.algorithm;
