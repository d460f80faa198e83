/**
 * Configuration resolution with no I/O: from the levels read for one entity on one resource to the limits, disabled
 * mode and cascade decision that apply to a call.
 */
package dev.zaelimiter.resolution;
