/** Spring Boot auto-configuration of zae-limiter: properties, the limiter and its store, declared limits. */
package dev.zaelimiter.autoconfigure;
