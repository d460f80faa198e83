package dev.zaelimiter.autoconfigure.actuate;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.util.Map;

/**
 * A health indicator's answer, read through Spring Boot 4's health API.
 *
 * @param status the status code, such as {@code UP}
 * @param details the details
 */
record HealthReading(String status, Map<String, Object> details) {

    static HealthReading of(Object indicator) {
        Health health = ((HealthIndicator) indicator).health();
        return new HealthReading(health.getStatus().getCode(), health.getDetails());
    }

    /** The contributor that the application's health registry knows by {@code name}. */
    static Object contributor(ApplicationContext context, String name) {
        return context.getBean(HealthContributorRegistry.class).getContributor(name);
    }

    /** {@code runner} with an always-up health indicator of the application's own, named {@code name}. */
    static ApplicationContextRunner withOwnIndicator(ApplicationContextRunner runner, String name) {
        return runner.withBean(name, HealthIndicator.class, () -> () -> Health.up().build());
    }
}
