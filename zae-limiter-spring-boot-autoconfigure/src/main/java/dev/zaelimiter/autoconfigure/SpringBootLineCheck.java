package dev.zaelimiter.autoconfigure;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Stops an application whose Spring Boot major version is not the one this artifact was built for, before any of
 * its auto-configuration loads a class that moved between the lines.
 */
class SpringBootLineCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        check(SpringBootVersion.getVersion());
    }

    /**
     * @param runningVersion the running Spring Boot version; {@code null} (unknown, as in a jar repackaged without
     *         Spring Boot's manifest) passes
     * @throws WrongSpringBootLineException when its major version is not {@link SpringBootLine#MAJOR}
     */
    static void check(String runningVersion) {
        if (runningVersion == null) {
            return;
        }
        int dot = runningVersion.indexOf('.');
        String major = dot < 0 ? runningVersion : runningVersion.substring(0, dot);
        if (!major.equals(Integer.toString(SpringBootLine.MAJOR))) {
            throw new WrongSpringBootLineException(runningVersion, starterFor(major));
        }
    }

    static String starterFor(String major) {
        return switch (major) {
            case "3" -> "zae-limiter-spring-boot3-starter";
            case "4" -> "zae-limiter-spring-boot-starter";
            default -> null;
        };
    }
}
