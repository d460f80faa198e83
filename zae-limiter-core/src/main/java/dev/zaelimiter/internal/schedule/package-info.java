/**
 * Five-field cron patterns (engine, not public API), evaluated on local wall-clock time, for schedule
 * windows and quota reset edges.
 */
package dev.zaelimiter.internal.schedule;
