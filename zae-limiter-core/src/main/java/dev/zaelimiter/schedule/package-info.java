/**
 * Five-field cron patterns, evaluated on local wall-clock time, for schedule windows and quota reset edges.
 */
package dev.zaelimiter.schedule;
