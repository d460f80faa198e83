package dev.zaelimiter.autoconfigure.web;

import org.springframework.boot.autoconfigure.web.servlet.ConditionalOnMissingFilterBean;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Matches when the application has no {@link RateLimitFilter} bean nor a registration of one. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ConditionalOnMissingFilterBean(RateLimitFilter.class)
@interface ConditionalOnMissingRateLimitFilter {
}
