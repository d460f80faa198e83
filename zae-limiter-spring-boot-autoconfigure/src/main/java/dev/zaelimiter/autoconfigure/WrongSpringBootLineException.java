package dev.zaelimiter.autoconfigure;

/**
 * zae-limiter's Spring Boot artifacts run on a Spring Boot major version they were not built for. Raised before the
 * application context starts, naming the artifact for the running version.
 */
public class WrongSpringBootLineException extends IllegalStateException {

    private final String runningVersion;
    private final String replacement;

    WrongSpringBootLineException(String runningVersion, String replacement) {
        super(SpringBootLine.STARTER + " is built for Spring Boot " + SpringBootLine.MAJOR + ", but this application"
                + " runs Spring Boot " + runningVersion + ": " + (replacement == null
                        ? "no zae-limiter artifact of this version serves that Spring Boot line"
                        : "depend on dev.zaelimiter:" + replacement + " instead"));
        this.runningVersion = runningVersion;
        this.replacement = replacement;
    }

    /** The Spring Boot version the application runs. */
    public String runningVersion() {
        return runningVersion;
    }

    /** The starter for the running Spring Boot line, or {@code null} when there is none. */
    public String replacement() {
        return replacement;
    }
}
