package dev.zaelimiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a zae-limiter artifact on the wrong Spring Boot line into a startup report naming the one to use. */
class WrongSpringBootLineFailureAnalyzer extends AbstractFailureAnalyzer<WrongSpringBootLineException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, WrongSpringBootLineException cause) {
        String action = cause.replacement() == null
                ? "Use a Spring Boot version that zae-limiter serves: 3.5 (zae-limiter-spring-boot3-starter) or 4.0"
                        + " and 4.1 (zae-limiter-spring-boot-starter)."
                : "Replace dev.zaelimiter:" + SpringBootLine.STARTER + " (and " + SpringBootLine.AUTOCONFIGURE
                        + ", if the build names it) with dev.zaelimiter:" + cause.replacement()
                        + ", the starter for Spring Boot " + cause.runningVersion() + "'s line.";
        return new FailureAnalysis(cause.getMessage() + ".", action, cause);
    }
}
