package dev.zaelimiter.autoconfigure;

/** The Spring Boot line these classes are built for: Spring Boot 3.5. */
final class SpringBootLine {

    /** The Spring Boot major version. */
    static final int MAJOR = 3;

    /** The starter of this line. */
    static final String STARTER = "zae-limiter-spring-boot3-starter";

    /** The auto-configuration artifact of this line. */
    static final String AUTOCONFIGURE = "zae-limiter-spring-boot3-autoconfigure";

    private SpringBootLine() {
    }
}
