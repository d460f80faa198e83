/**
 * Configuration resolution with no I/O (engine, not public API): from the levels read for one entity on one
 * resource to the limits, disabled mode and cascade decision that apply to a call.
 */
package dev.zaelimiter.internal.resolution;
