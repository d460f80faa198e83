/**
 * The shared store on Redis: every limit of one entity on one resource in one hash, so that a decision is one script
 * run with nothing read first.
 */
package dev.zaelimiter.store.redis;
