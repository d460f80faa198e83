package dev.zaelimiter.autoconfigure;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Spring Boot's auto-configuration of Spring Data Redis (a LettuceConnectionFactory), by its Spring Boot 4 name. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ImportAutoConfiguration(org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration.class)
public @interface ImportDataRedis {
}
