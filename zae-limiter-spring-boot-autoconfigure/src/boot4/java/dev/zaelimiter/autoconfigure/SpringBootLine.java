package dev.zaelimiter.autoconfigure;

/** The Spring Boot line these classes are built for: Spring Boot 4.0 and 4.1. */
final class SpringBootLine {

    /** The Spring Boot major version. */
    static final int MAJOR = 4;

    /** The starter of this line. */
    static final String STARTER = "zae-limiter-spring-boot-starter";

    /** The auto-configuration artifact of this line. */
    static final String AUTOCONFIGURE = "zae-limiter-spring-boot-autoconfigure";

    private SpringBootLine() {
    }
}
