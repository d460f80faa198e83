/**
 * Support for testing an application's own limits: {@link dev.zaelimiter.autoconfigure.test.AutoConfigureZaeLimiterTest}
 * puts the limiter on an in-memory store and a clock the test drives, and resets buckets after every test method.
 */
package dev.zaelimiter.autoconfigure.test;
