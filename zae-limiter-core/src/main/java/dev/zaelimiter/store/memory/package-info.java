/** The embedded store: everything in the heap of one process. */
package dev.zaelimiter.store.memory;
