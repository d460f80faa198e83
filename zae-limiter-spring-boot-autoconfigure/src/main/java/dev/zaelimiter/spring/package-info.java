/**
 * Rate limiting of Spring beans' methods by annotation: {@link dev.zaelimiter.spring.RateLimited},
 * {@link dev.zaelimiter.spring.Consume} and {@link dev.zaelimiter.spring.RateLimitContext}. Auto-configured by
 * {@code dev.zaelimiter.autoconfigure.aop.ZaeLimiterAopAutoConfiguration} when AspectJ is on the class path (as with
 * {@code spring-boot-starter-aop}) and a {@code RateLimiter} bean exists.
 */
package dev.zaelimiter.spring;
