package dev.zaelimiter.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Spring Boot's auto-configurations of the health endpoint and its contributors, by their Spring Boot 3.5 names. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ImportAutoConfiguration({
        HealthContributorAutoConfiguration.class,
        HealthEndpointAutoConfiguration.class})
public @interface ImportHealth {
}
